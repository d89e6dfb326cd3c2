package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestOpsMarkdown: the summary counts ops judged and that reached llc; the
// per-op table lists the ops with an error first and caps the rest; an op
// no judge defines is not an op seen.
func TestOpsMarkdown(t *testing.T) {
	v := func(o string, k oracles.Kind, rule string) oracles.Verdict {
		return oracles.Verdict{Oracle: o, Domain: "nvvmop", Kind: k, Rule: rule}
	}
	var b tally.Ops
	b.Add("nvvm.elect.sync", []oracles.Verdict{v("spec/ptxisa", oracles.Accept, "r"), v("nvvm-op@trunk", oracles.Error, "llc/pass-refused")})
	b.Add("nvvm.elect.sync", []oracles.Verdict{v("nvvm-op@trunk", oracles.Error, "llc/pass-refused")})
	b.Add("nvvm.elect.sync", []oracles.Verdict{v("nvvm-op@trunk", oracles.Accept, "llc")})
	b.Add("nvvm.unknown", []oracles.Verdict{v("nvvm-op@trunk", oracles.Unsupported, "")})
	for i := range opListLimit + 2 {
		b.Add(fmt.Sprintf("nvvm.a%02d", i), []oracles.Verdict{v("nvvm-op@trunk", oracles.Reject, "verify")})
	}
	cov := b.Coverage()
	if len(cov) != 1 || cov[0].Ops != opListLimit+3 || cov[0].Judged != opListLimit+3 || cov[0].ReachedLLC != 1 {
		t.Fatalf("coverage %+v", cov)
	}
	var md strings.Builder
	writeOpsMarkdown(&md, cov)
	text := md.String()
	for _, want := range []string{
		"| nvvm-op@trunk | nvvmop | 13 | 13 (100%) | 1 (7%) |",
		"|---|---:|---|\n| nvvm-op@trunk | nvvm.elect.sync | 3 | error llc/pass-refused 2, accept llc 1 |\n| nvvm-op@trunk | nvvm.a00 | 1 | reject verify 1 |",
		"| nvvm-op@trunk | … and 3 more ops | | |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "nvvm.unknown") || strings.Contains(text, "nvvm.a11") {
		t.Errorf("an op no judge defines named, or the capped rest listed:\n%s", text)
	}
}
