package schedule

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// roundTrip checks that v is valid, then its canonical and JSON round trips.
func roundTrip(t testing.TB, v domain.Value) {
	t.Helper()
	sv := v.(Value)
	if err := sv.Validate(); err != nil {
		t.Fatalf("invalid value: %v\n%s", err, v)
	}
	domaintest.RoundTrip(t, Domain, v)
}

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "SCHEDULE_SEED", Seed: 0x5c4ed, Stream: 3, N: 5000, MaxLen: 400,
	Check: roundTrip, Full: mustGenerate(Seed003DAG(1, 2))}

func TestDomain(t *testing.T) { suite.Run(t) }

// TestJSONForm pins the readable spelling of ops and refs.
func TestJSONForm(t *testing.T) {
	b := NewBuilder(sm90a)
	b.Ring(2)
	b.Buffer(Smem)
	b.Buffer(Smem)
	b.Barrier(1)
	b.Barrier(1)
	b.Role(RoleLoad).Wait(InRing(0, 0), 1).ArriveN(Fixed(1), 1, true).Fence(SpaceSharedCTA)
	js, err := json.Marshal(b.MustValue())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"op":"mbarrier.try_wait.parity","bar":"0+r0","parity":1}`,
		`{"op":"mbarrier.arrive","bar":1,"count":1,"no_complete":true}`,
		`{"op":"fence.proxy.async","space":"shared::cta"}`,
		`"rings":[2]`, `"buffers":["smem","smem"]`, `"barriers":[{"count":1},{"count":1}]`,
	} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON %s lacks %s", js, want)
		}
	}
}

// TestParseJSONStrict checks defaults and the errors naming the field.
func TestParseJSONStrict(t *testing.T) {
	ok := `{"buffers":["smem"],"barriers":[{}],"roles":[{"kind":"warp","ops":[{"op":"mbarrier.arrive","bar":0},{"op":"loop","trips":2},{"op":"st.shared","a":0},{"op":"endloop"}]}]}`
	v, err := ParseJSON([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	sv := v.(Value)
	if sv.Tgt != sm90a || sv.Barriers[0] != (Barrier{Preinit: true, Count: 1}) || sv.Roles[0].Ops[0].N != 1 {
		t.Fatalf("defaults not applied: %s", sv)
	}
	for _, tc := range []struct{ name, js, want string }{
		{"unknown field", `{"roles":[{"kind":"warp","ops":[]}],"colour":1}`, "colour"},
		{"field not used by op", `{"buffers":["smem"],"roles":[{"kind":"warp","ops":[{"op":"st.shared","a":0,"bytes":4}]}]}`, `"bytes" does not apply`},
		{"unknown op", `{"roles":[{"kind":"warp","ops":[{"op":"mbarrier.wait"}]}]}`, "unknown op"},
		{"bad ref", `{"buffers":["smem"],"roles":[{"kind":"warp","ops":[{"op":"st.shared","a":"0+x"}]}]}`, "BASE+rK"},
		{"ref beyond buffers", `{"buffers":["smem"],"roles":[{"kind":"warp","ops":[{"op":"st.shared","a":3}]}]}`, "does not exist"},
		{"ring beyond buffers", `{"buffers":["smem"],"rings":[2],"roles":[{"kind":"warp","ops":[{"op":"st.shared","a":"0+r0"}]}]}`, "does not exist"},
		{"unmatched endloop", `{"roles":[{"kind":"warp","ops":[{"op":"endloop"}]}]}`, "endloop without"},
		{"open loop", `{"roles":[{"kind":"warp","ops":[{"op":"loop"}]}]}`, "left open"},
		{"trips", `{"roles":[{"kind":"warp","ops":[{"op":"loop","trips":9},{"op":"endloop"}]}]}`, "trips"},
		{"no roles", `{"roles":[]}`, "roles"},
		{"count without preinit", `{"barriers":[{"preinit":false,"count":2}],"roles":[{"kind":"warp","ops":[]}]}`, "mbarrier.init"},
		{"bad cond", `{"roles":[{"kind":"warp","ops":[{"op":"if","cond":"sometimes"},{"op":"endif"}]}]}`, "cond"},
		{"trailing data", `{"roles":[{"kind":"warp","ops":[]}]} {}`, "trailing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.js))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestDecodeRepairsControl checks that unmatched control ops become nops.
func TestDecodeRepairsControl(t *testing.T) {
	role := Role{NOps: 6, Ops: [MaxOps]Op{{Code: EndLoop}, {Code: Loop, N: 2}, {Code: Loop, N: 2}, {Code: Loop, N: 2},
		{Code: Else}, {Code: EndLoop}}}
	repairControl(&role)
	if err := checkControl(role.Program()); err != nil {
		t.Fatalf("repair left %v: %+v", err, role.Program())
	}
	if role.Ops[0].Code != Nop || role.Ops[4].Code != Nop {
		t.Fatalf("unmatched endloop/else kept: %+v", role.Program())
	}
}

func TestDAGRoundTripAndGenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(suite.RNGSeed(t), 7))
	for i := range 2000 {
		d := RandomDAG(rng)
		if back := DecodeDAG(d.Encode()); !reflect.DeepEqual(back, d) {
			t.Fatalf("%d: DecodeDAG(Encode(%v)) = %v", i, d, back)
		}
		slots := 0
		for _, c := range d.ChainList() {
			slots += int(c.Stages)
			if c.Consumers == 0 || c.Consumers&(1<<c.Producer) != 0 {
				t.Fatalf("%v: chain %+v has no consumer or consumes itself", d, c)
			}
		}
		if slots > MaxDAGSlots {
			t.Fatalf("%v: %d slots", d, slots)
		}
		v1, err1 := Generate(d)
		v2, err2 := Generate(d)
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("%v: Generate is not deterministic", d)
		}
		if err1 == nil {
			roundTrip(t, v1)
		}
	}
	// Seeded generation is deterministic.
	a, b := RandomDAG(rand.New(rand.NewPCG(9, 9))), RandomDAG(rand.New(rand.NewPCG(9, 9)))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("RandomDAG differs for one seed")
	}
}

func TestExamplesValid(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Examples() {
		if seen[e.Name] {
			t.Errorf("duplicate example %s", e.Name)
		}
		seen[e.Name] = true
		if err := e.V.Validate(); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
}

// TestBlocks finds the ends of nested blocks and the else of an if:
// loop { if { } else { if { } } } and a loop never closed.
func TestBlocks(t *testing.T) {
	ops := []Op{{Code: Loop}, {Code: If}, {Code: Else}, {Code: If}, {Code: EndIf}, {Code: EndIf}, {Code: EndLoop}, {Code: Loop}}
	for _, tc := range []struct{ at, end int }{{0, 6}, {1, 5}, {3, 4}, {7, 8}} {
		if got := BlockEnd(ops, tc.at); got != tc.end {
			t.Errorf("BlockEnd at %d = %d, want %d", tc.at, got, tc.end)
		}
	}
	if els, end := IfParts(ops, 1); els != 2 || end != 5 {
		t.Errorf("IfParts(1) = %d, %d, want 2, 5", els, end)
	}
	if els, end := IfParts(ops, 3); els != 4 || end != 4 {
		t.Errorf("IfParts(3) = %d, %d, want 4, 4 (no else)", els, end)
	}
}

// TestBuilderBounds: one declaration past a bound fails the build, naming
// the bound, and the indices before it count from 0.
func TestBuilderBounds(t *testing.T) {
	for _, tc := range []struct {
		what    string
		max     int
		declare func(b *Builder) int
	}{
		{"buffers", MaxBuffers, func(b *Builder) int { return b.Buffer(Smem) }},
		{"mbarriers", MaxBarriers, func(b *Builder) int { return b.Barrier(1) }},
		{"rings", MaxRings, func(b *Builder) int { return b.Ring(2) }},
		{"tensor maps", MaxTensorMaps, func(b *Builder) int { return b.TensorMap() }},
	} {
		b := NewBuilder(sm90a)
		for i := range tc.max {
			if got := tc.declare(b); got != i {
				t.Fatalf("%s: declaration %d has index %d", tc.what, i, got)
			}
		}
		tc.declare(b)
		want := fmt.Sprintf("more than %d %s", tc.max, tc.what)
		if _, err := b.Value(); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", tc.what, err, want)
		}
	}
	b := NewBuilder(sm90a)
	for range MaxRoles + 1 {
		b.Role(RoleLoad)
	}
	if _, err := b.Value(); err == nil || err.Error() != fmt.Sprintf("more than %d roles", MaxRoles) {
		t.Errorf("roles: %v", err)
	}
}
