package fenceproxy

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/model"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

var sm90a = target.MustParse("sm_90a", "")

func codes(ops []sc.Op) []sc.Code {
	out := make([]sc.Code, len(ops))
	for i, o := range ops {
		out[i] = o.Code
	}
	return out
}

func inject(t *testing.T, v sc.Value) Result {
	t.Helper()
	res, err := Reinsert(v)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSeed002Example: the seed's end-to-end example gets one fence right
// before the wgmma, and the model then finds it ok.
func TestSeed002Example(t *testing.T) {
	b := sc.NewBuilder(sm90a)
	x := sc.Fixed(b.Buffer(sc.Smem))
	b.Role(sc.RoleCompute).St(x).WgmmaFence().Wgmma(x, x).WgmmaCommit().WgmmaWait(0)
	res := inject(t, b.MustValue())
	want := []sc.Code{sc.StShared, sc.WgmmaFence, sc.FenceProxyAsync, sc.Wgmma, sc.WgmmaCommit, sc.WgmmaWait}
	if got := codes(res.V.Roles[0].Program()); !reflect.DeepEqual(got, want) {
		t.Fatalf("ops %v, want %v", got, want)
	}
	if len(res.Fences) != 1 || res.Fences[0] != (Site{0, 2}) {
		t.Fatalf("fences %v", res.Fences)
	}
	if v := model.Check(res.V).Verdict(); v != "ok" {
		t.Fatalf("model: %s", v)
	}
}

// TestControlFlow: a generic op at the end of a loop body reaches the async
// op at its start (fixpoint), and a generic op in one branch reaches the
// join (merge).
func TestControlFlow(t *testing.T) {
	b := sc.NewBuilder(sm90a)
	x := sc.Fixed(b.Buffer(sc.Smem))
	tm := b.TensorMap()
	b.Role(sc.RoleEpilogue).Loop(2).TMAStore(x, tm, sc.Fixed(0)).BulkCommit().BulkWait(0, true).St(x).EndLoop()
	b.Role(sc.RoleEpilogue).If(sc.CondAny).St(x).Else().Ld(x).EndIf().TMAStore(x, tm, sc.Fixed(1)).BulkCommit().BulkWait(0, true)
	res := inject(t, b.MustValue())
	if got := codes(res.V.Roles[0].Program()); got[1] != sc.FenceProxyAsync {
		t.Fatalf("loop: %v, want a fence before the store (carried from the loop's end)", got)
	}
	if got := codes(res.V.Roles[1].Program()); got[5] != sc.FenceProxyAsync {
		t.Fatalf("branch: %v, want a fence after the join", got)
	}
}

// TestBlindSpots: what seed 002's pass does not see gets no fence.
func TestBlindSpots(t *testing.T) {
	b := sc.NewBuilder(target.MustParse("sm_100a", ""))
	x := sc.Fixed(b.Buffer(sc.Smem))
	d := sc.Fixed(b.Buffer(sc.Tmem))
	bar := sc.Fixed(b.Barrier(1))
	b.Role(sc.RoleMMA).St(x).MMA(x, x, d).Commit(bar).Wait(bar, 0) // tcgen05 is unknown
	b.Role(sc.RoleWarp).St(x).Call(x, false, sc.EffectAsync).Ld(x) // a call without a smem pointer
	b.Role(sc.RoleWarp).Ld(x).Call(x, true, sc.EffectNone).Ld(x)   // a call with one counts as generic
	res := inject(t, b.MustValue())
	if len(res.Fences) != 0 {
		t.Fatalf("fences %v, want none (blind spots)", res.Fences)
	}
	if model.Check(res.V).FindProxy(model.ProxyAsync) == nil {
		t.Fatal("the model should find the hazards the pass missed")
	}
}

// TestHandshake: a TMA store gets commit + wait.read 0 right after it.
func TestHandshake(t *testing.T) {
	b := sc.NewBuilder(sm90a)
	x := sc.Fixed(b.Buffer(sc.Smem))
	tm := b.TensorMap()
	b.Role(sc.RoleEpilogue).Fence(sc.SpaceAll).TMAStore(x, tm, sc.Fixed(0)).Ld(x)
	res := inject(t, b.MustValue())
	ops := res.V.Roles[0].Program()
	if res.Handshakes != 1 || ops[1].Code != sc.BulkCommit || ops[2].Code != sc.BulkWait || !ops[2].Read() || ops[2].N != 0 {
		t.Fatalf("ops %v, handshakes %d", codes(ops), res.Handshakes)
	}
}

// TestClassMatchesSeedRule: the pass and the seed rule set classify every
// op alike (two independent readings of seed 002).
func TestClassMatchesSeedRule(t *testing.T) {
	names := map[int]string{async: "async", generic: "generic", none: "fence", 0: ""}
	for c := range sc.Code(len(sc.CodeNames())) {
		for _, smem := range []bool{false, true} {
			o := sc.Op{Code: c}
			if c == sc.Call {
				o = o.WithFlags(false, false, 0, smem, 0)
			}
			if got, want := names[class(o)], rules.Seed002Class(o); got != want {
				t.Errorf("%s (smem %v): pass %q, seed rule %q", c, smem, got, want)
			}
		}
	}
}

// TestInvariants on random schedules: the output is valid, keeps every
// non-fence op, satisfies seed 002's verifier, and a second pass adds
// nothing.
func TestInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range domaintest.Iterations(3000, 300) {
		dv, _ := sc.Decode(domaintest.Input(rng, rng.IntN(300)))
		v := dv.(sc.Value)
		res, err := Reinsert(v)
		if err == ErrCapacity {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		again, err := Inject(res.V)
		if err != nil || len(again.Fences) != 0 || again.Handshakes != 0 {
			t.Fatalf("not idempotent: %v %v %d\n%s", err, again.Fences, again.Handshakes, res.V)
		}
		j, _ := rules.JudgeValue(rules.Seed, sc.Name, res.V)
		if !j.Accept && j.Rule.ID == "seed.schedule.002-fence-proxy-async" {
			t.Fatalf("output fails seed 002: %s\n%s", j.Diagnostic, res.V)
		}
		so, si := Strip(res.V), Strip(v)
		if got, want := len(so.Roles[0].Program()), len(si.Roles[0].Program())+2*res.Handshakes; got > want {
			t.Fatalf("output has %d non-fence ops, input %d + handshakes", got, want)
		}
	}
}
