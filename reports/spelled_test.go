package reports

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestRenderCoverageCountsReasons(t *testing.T) {
	layout := oracles.Reason{Field: "layout", Class: "not-row-col", Gap: oracles.ToolLacks}
	v := func(o string, k oracles.Kind, rule string) oracles.Verdict {
		return oracles.Verdict{Oracle: o, Domain: "mma", Kind: k, Rule: rule, Diagnostic: "why " + rule}
	}
	var b tally.Spelled
	b.Add([]oracles.Verdict{v("spec/ptxisa", oracles.Reject, "r1"), v("mlir@22", oracles.Accept, "ptxas"), v("llc@22", oracles.Unsupported, layout.Rule())})
	b.Add([]oracles.Verdict{v("mlir@22", oracles.Unsupported, layout.Rule()), v("llc@22", oracles.Unsupported, layout.Rule())})
	b.Add([]oracles.Verdict{v("mlir@22", oracles.Unsupported, "render"), v("llc@22", oracles.Reject, "llc.verifier")})
	cov := b.Coverage()
	if len(cov) != 2 || cov[0].Oracle != "llc@22" || cov[1].Oracle != "mlir@22" {
		t.Fatalf("cells %+v, want llc@22 and mlir@22 (spec left out)", cov)
	}
	llc, mlir := cov[0], cov[1]
	if llc.Cases != 3 || llc.Judged != 1 || len(llc.Reasons) != 1 || llc.Reasons[0].Cases != 2 || llc.Reasons[0].Gap != "tool" || llc.Reasons[0].Field != "layout" {
		t.Errorf("llc@22: %+v", llc)
	}
	if mlir.Cases != 3 || mlir.Judged != 1 || len(mlir.Reasons) != 2 {
		t.Fatalf("mlir@22: %+v", mlir)
	}
	if got := topReasons(mlir); got != "undeclared render 33%; tool layout=not-row-col 33%" {
		t.Errorf("top reasons %q", got)
	}
	var md strings.Builder
	writeCoverageMarkdown(&md, cov, b.ToolCoverage())
	if !strings.Contains(md.String(), "| llc@22 | mma | 3 | 33% | tool layout=not-row-col 67% |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if tools := b.ToolCoverage(); len(tools) != 0 {
		t.Errorf("tool cells %+v without a second entry point", tools)
	}
}

// TestToolCoverageAnyEntryPoint: a case counts as judged by MLIR when its
// nvgpu or its nvvm spelling was judged, per installation.
func TestToolCoverageAnyEntryPoint(t *testing.T) {
	v := func(o string, k oracles.Kind) oracles.Verdict {
		return oracles.Verdict{Oracle: o, Domain: "ldsm", Kind: k}
	}
	var b tally.Spelled
	b.Add([]oracles.Verdict{v("mlir@trunk", oracles.Unsupported), v("mlir-nvvm@trunk", oracles.Accept), v("mlir@22", oracles.Accept)})
	b.Add([]oracles.Verdict{v("mlir@trunk", oracles.Reject), v("mlir-nvvm@trunk", oracles.Unsupported)})
	b.Add([]oracles.Verdict{v("mlir-nvvm@trunk", oracles.Unsupported), v("mlir@trunk", oracles.Unsupported)})
	var merged tally.Spelled
	merged.Merge(&b)
	tools := merged.ToolCoverage()
	if len(tools) != 1 || tools[0].Oracle != "mlir@trunk" || tools[0].Cases != 3 || tools[0].Judged != 2 {
		t.Fatalf("tool cells %+v, want mlir@trunk judging 2 of 3 (mlir@22 has no nvvm verdict)", tools)
	}
	var md strings.Builder
	writeCoverageMarkdown(&md, merged.Coverage(), tools)
	if !strings.Contains(md.String(), "| mlir@trunk | ldsm | 3 | 67% |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
