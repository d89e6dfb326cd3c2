package fuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/corpus"

	"github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/fenceproxy"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/mbarplan"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/model"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
)

// algoStateBound bounds the model inside the algorithm targets, so that
// one input costs milliseconds.
const algoStateBound = 20_000

// FuzzSchedule is the schedule domain's target: decode, every domain
// invariant and both rule sets (Check), then the model's own invariants.
func FuzzSchedule(f *testing.F) {
	addSeeds(f, schedule.Seeds())
	f.Fuzz(func(t *testing.T, data []byte) {
		dv, err := schedule.Decode(data)
		if err != nil {
			t.Fatalf("decode never fails: %v", err)
		}
		if _, err := rulestest.CheckInvariants(schedule.Domain, dv); err != nil {
			t.Fatal(err)
		}
		if err := modelInvariants(dv.(schedule.Value)); err != nil {
			t.Fatal(err)
		}
	})
}

// modelInvariants ties the ptxisa judgment to the model's result: accept
// exactly when the target holds every op and the model found nothing within
// its bound; a reject names the model's verdict; every finding of an
// explored schedule has a witness.
func modelInvariants(v schedule.Value) error {
	j, err := rules.JudgeValue(rules.PTXISA, schedule.Name, v)
	if err != nil {
		return err
	}
	res := model.Cached(v)
	verdict := res.Verdict()
	if j.Accept && verdict != "ok" {
		return errorf("ptxisa accepted a schedule the model calls %s", verdict)
	}
	if !j.Accept {
		rule := strings.TrimPrefix(j.Rule.ID, "ptxisa.schedule.")
		if !strings.HasPrefix(rule, "target") && rule != verdict {
			return errorf("ptxisa fired %s, the model's verdict is %s", rule, verdict)
		}
	}
	for _, f := range res.Findings {
		if res.States > 0 && len(f.Witness) == 0 && f.Rule != "deadlock" {
			return errorf("finding %s without a witness", f.Rule)
		}
	}
	if res.States > v.StateBound() {
		return errorf("explored %d states, bound %d", res.States, v.StateBound())
	}
	return nil
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("invariant: "+format, args...)
}

// fenceOutcome is what fence insertion did to one schedule.
type fenceOutcome struct {
	Inserted    int  // fences inserted
	Clean       bool // the model finds the output ok
	Unnecessary int  // inserted fences of a clean output that the model shows removable
	Missed      bool // the output still has a generic<->async proxy hazard
	Witness     *model.Finding
	Out         schedule.Value
}

// runFenceInsert strips v's fences, runs InjectFenceProxy and judges the
// output. It returns an error only for a broken invariant; ok is false when
// the input does not fit (capacity) or the model could not finish.
func runFenceInsert(v schedule.Value) (out fenceOutcome, ok bool, err error) {
	v.MaxStates = algoStateBound
	stripped := fenceproxy.Strip(v)
	res, ierr := fenceproxy.Inject(stripped)
	if errors.Is(ierr, fenceproxy.ErrCapacity) {
		return out, false, nil
	}
	if ierr != nil {
		return out, false, ierr
	}
	// The pass is idempotent and its output satisfies seed 002's verifier.
	again, ierr := fenceproxy.Inject(res.V)
	if ierr == nil && (len(again.Fences) != 0 || again.Handshakes != 0) {
		return out, false, errorf("InjectFenceProxy is not idempotent: %d more fences, %d more handshakes", len(again.Fences), again.Handshakes)
	}
	j, jerr := rules.JudgeValue(rules.Seed, schedule.Name, res.V)
	if jerr != nil {
		return out, false, jerr
	}
	if !j.Accept && (strings.HasPrefix(j.Rule.ID, "seed.schedule.002")) {
		return out, false, errorf("InjectFenceProxy output fails seed 002's own rule %s: %s", j.Rule.ID, j.Diagnostic)
	}
	m := model.Check(res.V)
	if !m.Complete && len(m.Findings) == 0 {
		return out, false, nil
	}
	out = fenceOutcome{Inserted: len(res.Fences), Out: res.V}
	if f := m.FindProxy(model.ProxyAsync); f != nil {
		out.Missed, out.Witness = true, f
	}
	// A fence is unnecessary when the output is ok and stays ok without it
	// (on a schedule with other findings, pruning could hide a hazard).
	if m.Verdict() == "ok" {
		out.Clean = true
		for _, site := range res.Fences {
			if model.Check(removeOp(res.V, site.Role, site.PC)).Verdict() == "ok" {
				out.Unnecessary++
			}
		}
	}
	return out, true, saturationInvariant(stripped)
}

// saturationInvariant is an exact property of the model: with a
// fence.proxy.async after every op of every role, no generic->async hazard
// remains (every generic write is fenced by its writer before any release).
func saturationInvariant(v schedule.Value) error {
	sat := v
	for r := range v.RoleList() {
		ops := v.Roles[r].Program()
		if 2*len(ops) > schedule.MaxOps {
			return nil
		}
		var out []schedule.Op
		for _, o := range ops {
			out = append(out, o)
			if o.Code != schedule.Loop && o.Code != schedule.If && o.Code != schedule.Else {
				out = append(out, schedule.Op{Code: schedule.FenceProxyAsync})
			}
		}
		sat.Roles[r].Ops = [schedule.MaxOps]schedule.Op{}
		copy(sat.Roles[r].Ops[:], out)
		sat.Roles[r].NOps = uint8(len(out))
	}
	if err := sat.Validate(); err != nil {
		return err
	}
	if f := model.Check(sat).FindProxy(model.ProxyAsync); f != nil {
		return errorf("a fence after every op still leaves a generic->async hazard: %s", f.Detail)
	}
	return nil
}

// removeOp returns v without role r's op pc.
func removeOp(v schedule.Value, r, pc int) schedule.Value {
	out := v
	role := &out.Roles[r]
	ops := append([]schedule.Op(nil), v.Roles[r].Program()...)
	ops = append(ops[:pc], ops[pc+1:]...)
	role.Ops = [schedule.MaxOps]schedule.Op{}
	copy(role.Ops[:], ops)
	role.NOps = uint8(len(ops))
	return out
}

// FuzzFenceInsert: decode a schedule, strip its fences, insert them with
// InjectFenceProxy (seed 002) and judge the output with the model. A missed
// fence or an unnecessary one is data (logged); only broken invariants fail.
func FuzzFenceInsert(f *testing.F) {
	addSeeds(f, schedule.Seeds())
	f.Fuzz(func(t *testing.T, data []byte) {
		dv, err := schedule.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		out, ok, err := runFenceInsert(dv.(schedule.Value))
		if err != nil {
			t.Fatal(err)
		}
		if ok && out.Missed {
			t.Logf("finding: InjectFenceProxy missed a fence: %s", out.Witness.Detail)
		}
	})
}

// planOutcome is what the seed 003 planner's schedule got from the model.
type planOutcome struct {
	Verdict  string
	Rules    []string
	Findings []model.Finding
	Plan     schedule.Value
}

// runMbarPlan plans d with the reference and with seed 003's planner and
// judges both; the reference must be ok (or bound-exceeded).
func runMbarPlan(d schedule.DAG) (out planOutcome, ok bool, err error) {
	if back := schedule.DecodeDAG(d.Encode()); !reflect.DeepEqual(back, d) {
		return out, false, errorf("DecodeDAG(Encode(d)) = %v, want %v", back.String(), d.String())
	}
	ref, gerr := schedule.Generate(d)
	if gerr == nil {
		ref.MaxStates = algoStateBound
		if r := model.Check(ref); r.Verdict() != "ok" && r.Verdict() != "bound-exceeded" {
			return out, false, errorf("reference plan of %s is %s: %s", d.String(), r.Verdict(), r.Findings[0].Detail)
		}
	}
	plan, perr := mbarplan.Plan(d)
	if errors.Is(perr, mbarplan.ErrCapacity) {
		return out, false, nil
	}
	if perr != nil {
		return out, false, perr
	}
	plan.MaxStates = algoStateBound
	r := model.Check(plan)
	out = planOutcome{Verdict: r.Verdict(), Findings: r.Findings, Plan: plan}
	for _, f := range r.Findings {
		out.Rules = append(out.Rules, f.Rule)
	}
	return out, true, nil
}

// FuzzMbarPlan: DAG bytes -> seed 003's mbarrier plan -> model. Deadlocks,
// races and UB in the plan are data (logged); a reference plan the model
// rejects, or a DAG codec that does not round-trip, fails.
func FuzzMbarPlan(f *testing.F) {
	for _, d := range seedDAGs() {
		f.Add(d.Encode())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, ok, err := runMbarPlan(schedule.DecodeDAG(data))
		if err != nil {
			t.Fatal(err)
		}
		if ok && out.Verdict != "ok" && out.Verdict != "bound-exceeded" {
			t.Logf("finding: seed 003 plan is %s %v", out.Verdict, out.Rules)
		}
	})
}

func seedDAGs() []schedule.DAG {
	shared := schedule.HopperDAG(2, 1, 2, false)
	shared.NRoles, shared.Roles[2] = 3, schedule.RoleCompute
	shared.Chains[0].Consumers = 1<<1 | 1<<2
	return []schedule.DAG{
		schedule.HopperDAG(2, 2, 2, false), schedule.HopperDAG(1, 2, 1, true),
		schedule.BlackwellDAG(2, 1, 2, false), schedule.BlackwellDAG(1, 3, 1, false),
		schedule.Seed003DAG(1, 1), shared,
	}
}

// TestScheduleAlgorithmFindings sweeps both algorithms under test over
// mutated seed schedules and all small DAGs, buckets what the model finds,
// minimizes one witness per bucket and logs it as JSON (run with -v). It
// fails only on broken invariants. It takes minutes, so it runs only with
// SCHEDULE_FINDINGS=1; SCHEDULE_FINDINGS_CORPUS names a fuzz cache folder
// (with FuzzFenceInsert/ and FuzzMbarPlan/) to replay as well.
func TestScheduleAlgorithmFindings(t *testing.T) {
	if os.Getenv("SCHEDULE_FINDINGS") == "" {
		t.Skip("set SCHEDULE_FINDINGS=1 to sweep the algorithms under test")
	}
	t.Run("fenceproxy", sweepFenceInsert)
	t.Run("mbarplan", sweepMbarPlan)
}

var digits = regexp.MustCompile(`\d+`)

func sweepFenceInsert(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	var inputs []schedule.Value
	for _, s := range schedule.Seeds() {
		inputs = append(inputs, s.(schedule.Value))
		enc := s.Encode()
		for range 150 {
			b := append([]byte(nil), enc...)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
			dv, _ := schedule.Decode(b)
			inputs = append(inputs, dv.(schedule.Value))
		}
	}
	inputs = append(inputs, replayCorpus(t, "FuzzFenceInsert", func(b []byte) (schedule.Value, bool) {
		dv, err := schedule.Decode(b)
		return dv.(schedule.Value), err == nil
	})...)
	buckets := map[string]schedule.Value{}
	var order []string
	judged, inserted, unneeded, missed, clean, cleanFences := 0, 0, 0, 0, 0, 0
	var overFenced *schedule.Value
	for _, v := range inputs {
		out, ok, err := runFenceInsert(v)
		if err != nil {
			t.Fatalf("%v\n%s", err, v)
		}
		if !ok {
			continue
		}
		judged++
		inserted += out.Inserted
		unneeded += out.Unnecessary
		if out.Clean {
			clean++
			cleanFences += out.Inserted
		}
		if out.Unnecessary > 0 && overFenced == nil {
			w := fenceproxy.Strip(v)
			overFenced = &w
		}
		if !out.Missed {
			continue
		}
		missed++
		key := digits.ReplaceAllString(out.Witness.Detail, "N")
		if _, seen := buckets[key]; !seen {
			order = append(order, key)
			buckets[key] = fenceproxy.Strip(v)
		}
	}
	t.Logf("fence insertion: %d schedules judged, %d fences inserted; %d outputs ok with %d fences, %d of them unnecessary; %d with a missed fence, %d buckets",
		judged, inserted, clean, cleanFences, unneeded, missed, len(order))
	for _, key := range order {
		v := minimize(buckets[key], func(w schedule.Value) bool {
			out, ok, err := runFenceInsert(w)
			return err == nil && ok && out.Missed && digits.ReplaceAllString(out.Witness.Detail, "N") == key
		})
		out, _, _ := runFenceInsert(v)
		js, _ := json.Marshal(v)
		t.Logf("MISSED FENCE %s\n  input (fences stripped): %s\n  witness: %s", key, js, strings.Join(out.Witness.Witness, "; "))
	}
	if overFenced != nil {
		v := minimize(*overFenced, func(w schedule.Value) bool {
			out, ok, err := runFenceInsert(w)
			return err == nil && ok && out.Unnecessary > 0
		})
		out, _, _ := runFenceInsert(v)
		in, _ := json.Marshal(v)
		res, _ := json.Marshal(out.Out)
		t.Logf("UNNECESSARY FENCE\n  input (fences stripped): %s\n  output: %s", in, res)
	}
}

func sweepMbarPlan(t *testing.T) {
	type bucket struct {
		d    schedule.DAG
		size int
	}
	buckets := map[string]*bucket{}
	var order []string
	planned, bad := 0, 0
	dags := allSmallDAGs()
	dags = append(dags, replayDAGs(t)...)
	for _, d := range dags {
		out, ok, err := runMbarPlan(d)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || out.Verdict == "bound-exceeded" {
			continue
		}
		planned++
		if out.Verdict == "ok" {
			continue
		}
		bad++
		key := strings.Join(out.Rules, "+")
		size := int(d.Tiles)*int(d.KIters) + int(d.NRoles) + int(d.NChains)
		for _, c := range d.ChainList() {
			size += int(c.Stages)
		}
		if b, seen := buckets[key]; !seen || size < b.size {
			if !seen {
				order = append(order, key)
			}
			buckets[key] = &bucket{d, size}
		}
	}
	t.Logf("mbarrier planning: %d DAGs planned and judged, %d with findings, %d buckets", planned, bad, len(order))
	for _, key := range order {
		d := buckets[key].d
		out, _, _ := runMbarPlan(d)
		js, _ := json.Marshal(out.Plan)
		t.Logf("PLAN FINDING %s on %s\n  plan: %s", key, d.String(), js)
		for _, f := range out.Findings {
			t.Logf("  %s: %s\n    witness: %s", f.Rule, f.Detail, strings.Join(f.Witness, "; "))
		}
	}
}

// allSmallDAGs enumerates DAG encodings over small choices.
func allSmallDAGs() []schedule.DAG {
	seen := map[string]bool{}
	var out []schedule.DAG
	var rec func(prefix []byte)
	rec = func(prefix []byte) {
		if len(prefix) == 12 {
			d := schedule.DecodeDAG(prefix)
			k := string(d.Encode())
			if !seen[k] && d.Tiles <= 2 && d.KIters <= 2 {
				seen[k] = true
				out = append(out, d)
			}
			return
		}
		for b := range 3 {
			rec(append(prefix, byte(b)))
		}
	}
	rec(nil)
	return out
}

func replayDAGs(t *testing.T) []schedule.DAG {
	var out []schedule.DAG
	replayCorpus(t, "FuzzMbarPlan", func(b []byte) (schedule.Value, bool) {
		out = append(out, schedule.DecodeDAG(b))
		return schedule.Value{}, false
	})
	return out
}

// replayCorpus reads the fuzz cache folder of target under
// SCHEDULE_FINDINGS_CORPUS, decoding each input with dec.
func replayCorpus(t *testing.T, target string, dec func([]byte) (schedule.Value, bool)) []schedule.Value {
	t.Helper()
	root := os.Getenv("SCHEDULE_FINDINGS_CORPUS")
	if root == "" {
		return nil
	}
	inputs, err := corpus.ReadGoDir(filepath.Join(root, target))
	if err != nil {
		t.Logf("replay %s: %v", target, err)
		return nil
	}
	var out []schedule.Value
	for _, in := range inputs {
		if in.Err != nil {
			continue
		}
		if v, ok := dec(in.Data); ok {
			out = append(out, v)
		}
	}
	t.Logf("replayed %d inputs of %s", len(inputs), target)
	return out
}

// minimize removes roles and ops from v while keep holds, to a fixpoint.
func minimize(v schedule.Value, keep func(schedule.Value) bool) schedule.Value {
	for changed := true; changed; {
		changed = false
		for r := int(v.NRoles) - 1; r >= 0 && v.NRoles > 1; r-- {
			if w := dropRole(v, r); w.Validate() == nil && keep(w) {
				v, changed = w, true
			}
		}
		for r := int(v.NRoles) - 1; r >= 0; r-- {
			for pc := int(v.Roles[r].NOps) - 1; pc >= 0; pc-- {
				if w := removeOp(v, r, pc); w.Validate() == nil && keep(w) {
					v, changed = w, true
				}
			}
		}
	}
	return v
}

func dropRole(v schedule.Value, r int) schedule.Value {
	out := v
	copy(out.Roles[r:], v.Roles[r+1:v.NRoles])
	out.NRoles--
	out.Roles[out.NRoles] = schedule.Role{}
	return out
}
