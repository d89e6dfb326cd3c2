package ptxas

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Schedule known answers, observed with ptxas 12.4 on the rendered PTX;
// they join knownAnswers so TestKnownAnswers and the domain coverage check
// see them.
func init() {
	knownAnswers = append(knownAnswers, []struct {
		name, domain string
		v            domain.Value
		want         oracles.Kind
		diag         string
	}{
		{"schedule 2-stage pipeline", sc.Name, sc.Pipeline(sc.DefaultPipeline), oracles.Accept, ""},
		{"schedule tensor-map update, fenced", sc.Name, retargetSched(example("tensormap-update-fenced"), "sm_90a", "8.3"),
			oracles.Accept, ""},
		{"schedule wgmma on sm_80", sc.Name, retargetSched(example("seed002-fenced"), "sm_80", "7.8"),
			oracles.Reject, "Instruction 'wgmma.mma_async with floating point types' not supported on .target 'sm_80'"},
		{"schedule wgmma on sm_90", sc.Name, retargetSched(example("seed002-fenced"), "sm_90", "8.0"),
			oracles.Reject, "Instruction 'wgmma.fence' not supported on .target 'sm_90'"},
		{"schedule tensormap fences, PTX 8.0", sc.Name, retargetSched(example("tensormap-update-fenced"), "sm_90a", "8.0"),
			oracles.Reject, "Feature 'fence.proxy with unidirection proxy fence' requires PTX ISA .version 8.3 or later"},
		{"schedule tcgen05 on sm_90a", sc.Name, retargetSched(example("blackwell-pipeline"), "sm_90a", ""),
			oracles.Reject, "Not a name of any known instruction: 'tcgen05.alloc'"},
		// Spec gaps: spec/ptxisa accepts these (its target gates say sm_80),
		// ptxas 12.4 does not; see scheduleSpecGap.
		{"schedule arrive count 2 on sm_80", sc.Name, arriveCount2(),
			oracles.Reject, ".noComplete modifier required for instruction 'mbarrier.arrive with count argument'"},
		{"schedule async-effect call on sm_80", sc.Name, asyncCallOnly(),
			oracles.Reject, "Feature 'cp.async.bulk' requires .target sm_90 or higher"},
		{"schedule sm_100a", sc.Name, example("blackwell-pipeline"), oracles.Unsupported, "does not know target sm_100a"},
	}...)
}

// arriveCount2 is one warp arriving with count 2 on a count-2 mbarrier, on
// sm_80.
func arriveCount2() sc.Value {
	b := sc.NewBuilder(target.MustParse("sm_80", ""))
	b.Role(sc.RoleWarp).ArriveN(sc.Fixed(b.Barrier(2)), 2, false)
	return b.MustValue()
}

// asyncCallOnly is an opaque call reading a buffer through the async proxy,
// on sm_80.
func asyncCallOnly() sc.Value {
	b := sc.NewBuilder(target.MustParse("sm_80", ""))
	b.Role(sc.RoleWarp).Call(sc.Fixed(b.Buffer(sc.Smem)), true, sc.EffectAsync)
	return b.MustValue()
}

// example is the hand-written schedule named name.
func example(name string) sc.Value {
	for _, e := range sc.Examples() {
		if e.Name == name {
			return e.V
		}
	}
	panic("no schedule example " + name)
}

func retargetSched(v sc.Value, arch, ptxVersion string) sc.Value {
	v.Tgt = target.MustParse(arch, ptxVersion)
	return v
}

// scheduleCases are the schedule seeds, some seeds on other targets
// (sm_80, sm_90, sm_90a with PTX 8.0 and 8.4), the spec-gap cases and
// mutated seeds: one or two bytes of the canonical encoding changed, a
// quarter of them on a random target, decoded.
func scheduleCases(t *testing.T, rng *rand.Rand, mutants int) []domain.Case {
	t.Helper()
	seeds := sc.Seeds()
	var cases []domain.Case
	for _, v := range seeds {
		cases = append(cases, domain.NewCase(sc.Name, v))
	}
	for _, tg := range []target.Target{target.MustParse("sm_80", "7.8"), target.MustParse("sm_90", "8.0"),
		target.MustParse("sm_90a", "8.0"), target.MustParse("sm_90a", "8.4")} {
		for _, v := range seeds {
			w := v.(sc.Value)
			if w.Tgt.Arch.SM < 100 && rng.IntN(3) == 0 {
				w.Tgt = tg
				cases = append(cases, domain.NewCase(sc.Name, w))
			}
		}
	}
	// Errors inside a callee (.func lines before the entry) and in the entry.
	for _, v := range []sc.Value{arriveCount2(), asyncCallOnly(), retargetSched(asyncCallOnly(), "sm_80", "7.8")} {
		cases = append(cases, domain.NewCase(sc.Name, v))
	}
	for len(cases) < len(seeds)+mutants {
		b := seeds[rng.IntN(len(seeds))].Encode()
		for range 1 + rng.IntN(2) {
			b[2+rng.IntN(len(b)-2)] = byte(rng.Uint32())
		}
		if rng.IntN(4) == 0 { // another target
			b[0], b[1] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		if v, err := sc.Decode(b); err == nil {
			cases = append(cases, domain.NewCase(sc.Name, v))
		}
	}
	return cases
}

// TestScheduleLegalAssemble: every schedule seed the reference model
// accepts on a target ptxas 12.4 knows, and every generated Hopper
// pipeline it accepts, assembles; generated Blackwell pipelines (sm_100a)
// are unsupported.
func TestScheduleLegalAssemble(t *testing.T) {
	o := realPTXAS(t)
	rng := rand.New(rand.NewPCG(rngSeed(t), 6))
	var cases []domain.Case
	var what []string
	for _, v := range sc.Seeds() {
		cases, what = append(cases, domain.NewCase(sc.Name, v)), append(what, "seed")
	}
	// Generated pipelines: Hopper ones the model accepts (some exceed its
	// state bound: no verdict, skipped), and Blackwell ones.
	hopper, blackwell, skipped := 0, 0, 0
	for draws := 0; (hopper < 6 || blackwell < 2) && draws < 100; draws++ {
		d := sc.RandomDAG(rng)
		if d.Blackwell && blackwell >= 2 || !d.Blackwell && hopper >= 6 {
			continue
		}
		v, err := sc.Generate(d)
		if err != nil {
			t.Fatalf("generate %v: %v", d, err)
		}
		if d.Blackwell {
			blackwell++
		} else if j, err := rules.JudgeValue(rules.PTXISA, sc.Name, v); err != nil || !j.Accept {
			t.Logf("pipeline %v: not accepted by the model: %s", d, j.Diagnostic)
			skipped++
			continue
		} else {
			hopper++
		}
		cases, what = append(cases, domain.NewCase(sc.Name, v)), append(what, "pipeline "+d.String())
	}
	if hopper < 3 || blackwell < 2 {
		t.Fatalf("%d Hopper pipelines the model accepts, %d Blackwell ones, %d skipped", hopper, blackwell, skipped)
	}
	vs := judge(t, o, cases)
	legal := 0
	for i, c := range cases {
		v := c.Value.(sc.Value)
		j, err := rules.JudgeValue(rules.PTXISA, sc.Name, v)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case v.Tgt.Arch.SM >= 100:
			if vs[i].Kind != oracles.Unsupported {
				t.Errorf("%s on %s: %s %q, want unsupported", what[i], v.Tgt, vs[i].Kind, vs[i].Diagnostic)
			}
		case !j.Accept:
		case vs[i].Kind != oracles.Accept:
			t.Errorf("%s the model accepts: %s %q\n%v", what[i], vs[i].Kind, vs[i].Diagnostic, v)
		default:
			legal++
		}
	}
	t.Logf("%d legal schedules assembled (%d generated Hopper pipelines, %d skipped), %d Blackwell pipelines unsupported",
		legal, hopper, skipped, blackwell)
	if legal < 20 {
		t.Fatalf("only %d legal schedules", legal)
	}
}

// TestScheduleBatchedEqualsOneByOne: schedules in one module per target and
// one process per schedule get identical verdicts, diagnostics included.
func TestScheduleBatchedEqualsOneByOne(t *testing.T) {
	o := realPTXAS(t)
	cases := scheduleCases(t, rand.New(rand.NewPCG(rngSeed(t), 7)), 30)
	batched := judge(t, o, cases)
	o.BatchSize = 1
	single := judge(t, o, cases)
	kinds := map[oracles.Kind]int{}
	for i := range cases {
		kinds[batched[i].Kind]++
		if !reflect.DeepEqual(batched[i], single[i]) {
			t.Errorf("%v\nbatched    %s %q\none by one %s %q", cases[i].Value,
				batched[i].Kind, batched[i].Diagnostic, single[i].Kind, single[i].Diagnostic)
		}
	}
	t.Logf("%d schedule cases: %v", len(cases), kinds)
	if kinds[oracles.Accept] == 0 || kinds[oracles.Reject] == 0 || kinds[oracles.Unsupported] == 0 {
		t.Fatalf("the sample lacks accepts, rejects or unsupported cases: %v", kinds)
	}
}

// scheduleTargetRules are the spec/ptxisa rules about the instruction mix:
// ptxas must reject what they reject. Every other schedule rule is about
// semantics ptxas cannot see (races, deadlocks, mbarrier misuse, proxies).
var scheduleTargetRules = map[string]bool{"ptxisa.schedule.target": true, "ptxisa.schedule.target-ptx-version": true}

// scheduleSpecGap names an op the target cannot hold that spec/ptxisa's
// target gates miss, or "": an opaque call whose effect is an async-proxy
// read (its body, cp.async.bulk, needs sm_90 and PTX 8.0: the gates are
// blind to what a call does), and mbarrier.arrive with a count other than
// 1 without .noComplete (the count operand needs sm_90 and PTX 7.8; the
// gates give mbarrier.arrive sm_80). ptxas rejects these; spec/ptxisa
// judges them by the model. Spec gaps reported to the lead, not renderer
// bugs.
func scheduleSpecGap(v sc.Value) string {
	for _, r := range v.RoleList() {
		for _, o := range r.Program() {
			switch {
			case o.Code == sc.Call && o.Effect() == sc.EffectAsync && (v.Tgt.Arch.SM < 90 || v.Tgt.PTX < 80):
				return "async-effect call below sm_90/PTX 8.0"
			case o.Code == sc.MbarArrive && o.N != 1 && !o.NoComplete() && (v.Tgt.Arch.SM < 90 || v.Tgt.PTX < 78):
				return "mbarrier.arrive count below sm_90/PTX 7.8"
			}
		}
	}
	return ""
}

// TestScheduleSpecVsPTXAS tabulates spec/ptxisa against ptxas on the seeds,
// retargeted seeds and mutants: the instruction-mix rules agree with ptxas;
// a schedule the model accepts assembles; the semantic rules reject what
// ptxas accepts (the expected disagreements, logged by rule).
func TestScheduleSpecVsPTXAS(t *testing.T) {
	o := realPTXAS(t)
	cases := scheduleCases(t, rand.New(rand.NewPCG(rngSeed(t), 8)), 200)
	vs := judge(t, o, cases)
	table := map[string]int{}
	for i, c := range cases {
		if vs[i].Kind == oracles.Unsupported {
			continue
		}
		j, err := rules.JudgeValue(rules.PTXISA, sc.Name, c.Value)
		if err != nil {
			t.Fatal(err)
		}
		rule := "accept"
		if !j.Accept {
			rule = j.Rule.ID
		}
		gap := scheduleSpecGap(c.Value.(sc.Value))
		if gap != "" && vs[i].Kind == oracles.Reject {
			table[fmt.Sprintf("%-40s ptxas %s (spec gap: %s)", rule, vs[i].Kind, gap)]++
		} else {
			table[fmt.Sprintf("%-40s ptxas %s", rule, vs[i].Kind)]++
		}
		switch {
		case vs[i].Kind != oracles.Accept && vs[i].Kind != oracles.Reject:
			t.Errorf("ptxas %s %q on %v", vs[i].Kind, vs[i].Diagnostic, c.Value)
		case vs[i].Kind == oracles.Reject && gap != "":
			// a known spec gap, tabulated above
		case j.Accept && vs[i].Kind != oracles.Accept:
			t.Errorf("spec accepts, ptxas rejects: %q\n%v", vs[i].Diagnostic, c.Value)
		case scheduleTargetRules[rule] && vs[i].Kind != oracles.Reject:
			t.Errorf("spec rejects by %s (%s), ptxas accepts\n%v", rule, j.Diagnostic, c.Value)
		case !j.Accept && !scheduleTargetRules[rule] && vs[i].Kind != oracles.Accept:
			t.Errorf("spec rejects by semantic rule %s, ptxas rejects too (%q): a renderer or target gap\n%v",
				rule, vs[i].Diagnostic, c.Value)
		}
	}
	rows := make([]string, 0, len(table))
	for k, n := range table {
		rows = append(rows, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(rows)
	t.Logf("spec/ptxisa vs ptxas on %d schedule cases:\n%s", len(cases), strings.Join(rows, "\n"))
}
