package tally

import (
	"encoding/json"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// opCase is an nvvmop case of op, as the store folds it.
func opCase(t *testing.T, id, op string) Case {
	t.Helper()
	v := nvvmop.Value{Op: op, Results: []string{"i1"}}
	return Case{ID: id, Domain: nvvmop.Name, Data: v.Encode()}
}

// opVerdicts are one case's verdicts: the spec's (left out), and trunk's
// and 23's.
func opVerdicts(id string, trunk, v23 oracles.Verdict) []oracles.Verdict {
	spec := oracles.Verdict{Oracle: oracles.SpecPTXISA, Kind: oracles.Accept, Rule: "ptxisa.nvvmop"}
	vs := []oracles.Verdict{spec, trunk, v23}
	for i := range vs {
		vs[i].Case, vs[i].Domain = id, nvvmop.Name
	}
	vs[1].Oracle, vs[2].Oracle = "nvvm-op@trunk", "nvvm-op@23"
	return vs
}

func verdict(kind oracles.Kind, rule string) oracles.Verdict {
	return oracles.Verdict{Kind: kind, Rule: rule}
}

// foldTwoOps folds cases of two ops into t: elect.sync refused by llc on
// trunk and selected once, unknown to 23; barrier0 rejected by trunk's
// verifier and accepted by 23's llc. A minimized case does not count, and
// two names no judge defines count as one UndefinedOp.
func foldTwoOps(t *testing.T, tl *Tally) {
	t.Helper()
	tl.Add(opCase(t, "a", "nvvm.elect.sync"), opVerdicts("a",
		verdict(oracles.Error, "llc/pass-refused"), verdict(oracles.Unsupported, "")))
	tl.Add(opCase(t, "b", "nvvm.elect.sync"), opVerdicts("b",
		verdict(oracles.Accept, "llc"), verdict(oracles.Unsupported, "")))
	tl.Add(opCase(t, "c", "nvvm.barrier0"), opVerdicts("c",
		verdict(oracles.Reject, "verify"), verdict(oracles.Accept, "llc")))
	min := opCase(t, "d", "nvvm.barrier0")
	min.Minimized = true
	tl.Add(min, opVerdicts("d", verdict(oracles.Error, "llc"), verdict(oracles.Error, "llc")))
	tl.Add(opCase(t, "f", "nvvm.0000"), opVerdicts("f", verdict(oracles.Unsupported, ""), verdict(oracles.Unsupported, "")))
	tl.Add(opCase(t, "g", "nvvm.0001"), opVerdicts("g", verdict(oracles.Unsupported, ""), verdict(oracles.Unsupported, "")))
	tl.Add(Case{ID: "e", Domain: "kindword", Data: []byte{0}}, []oracles.Verdict{{Oracle: "ptxas", Domain: "kindword", Kind: oracles.Accept}})
}

// wantOps checks the coverage of two folds of foldTwoOps (times).
func wantOps(t *testing.T, cov []OpCoverage, times int) {
	t.Helper()
	if len(cov) != 2 || cov[0].Oracle != "nvvm-op@23" || cov[1].Oracle != "nvvm-op@trunk" {
		t.Fatalf("coverage %+v, want nvvm-op@23 and nvvm-op@trunk alone (spec and op-less domains left out)", cov)
	}
	v23, trunk := cov[0], cov[1]
	if v23.Ops != 2 || v23.Judged != 1 || v23.ReachedLLC != 1 {
		t.Errorf("23: %d ops, %d judged, %d reached llc; want 2, 1, 1", v23.Ops, v23.Judged, v23.ReachedLLC)
	}
	if trunk.Ops != 2 || trunk.Judged != 2 || trunk.ReachedLLC != 1 {
		t.Errorf("trunk: %d ops, %d judged, %d reached llc; want 2, 2, 1", trunk.Ops, trunk.Judged, trunk.ReachedLLC)
	}
	elect, ok := trunk.Cell("nvvm.elect.sync")
	if !ok || elect.Cases != 2*times || elect.Outcomes["error llc/pass-refused"] != times || elect.Outcomes["accept llc"] != times || !elect.Refused() {
		t.Errorf("trunk elect.sync: %+v", elect)
	}
	barrier, ok := trunk.Cell("nvvm.barrier0")
	if !ok || barrier.Cases != times || barrier.Outcomes["reject verify"] != times || barrier.ReachedLLC() || barrier.Refused() {
		t.Errorf("trunk barrier0 (its minimized case left out): %+v", barrier)
	}
	if e, _ := v23.Cell("nvvm.elect.sync"); e.Judged() || e.Outcomes["unsupported"] != 2*times {
		t.Errorf("23 elect.sync: %+v", e)
	}
	for _, c := range cov {
		if u, ok := c.Cell(UndefinedOp); !ok || u.Cases != 2*times || len(c.Cells) != 3 {
			t.Errorf("%s: ops no judge defines %+v, %d cells; want %d cases in one cell", c.Oracle, u, len(c.Cells), 2*times)
		}
	}
}

func TestOpsCountOutcomesPerOp(t *testing.T) {
	var tl Tally
	foldTwoOps(t, &tl)
	wantOps(t, tl.Ops.Coverage(), 1)
}

// TestOpsMerge: merged tallies (a report's nights) add their per-op
// counts, and a tally read back from its stored JSON merges alike.
func TestOpsMerge(t *testing.T) {
	var a, b Tally
	foldTwoOps(t, &a)
	foldTwoOps(t, &b)
	data, err := json.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	var stored Tally
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	var sum Tally
	sum.Merge(&a)
	sum.Merge(&stored)
	wantOps(t, sum.Ops.Coverage(), 2)
}
