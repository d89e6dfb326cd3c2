package main

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// TestDomainsListsSurfaces: `legalfuzz domains` shows, for each
// installation and dialect, its ops, those instantiable and why not the
// rest, or that it has no TableGen sources.
func TestDomainsListsSurfaces(t *testing.T) {
	found, _, err := toolchain.Discover(context.Background(), toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Skip("no LLVM installation (make oracles)")
	}
	out, errOut, code := runCLI(t, "", "domains")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, listing, ok := strings.Cut(out, "OP SURFACES")
	if !ok {
		t.Fatalf("no OP SURFACES section in:\n%s", out)
	}
	for _, in := range found {
		_, err := surface.Read(context.Background(), in, surface.Sources[0])
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in.Label) + `\s+nvvm\s+\d+\s+\d+\s+\d+\s+\d+ \(\d+%\)$`)
		switch {
		case errors.Is(err, surface.ErrNoSources):
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in.Label) + `\s+nvvm\s+-.*no TableGen sources`).MatchString(listing) {
				t.Errorf("LLVM %s has no sources; the listing does not say so:\n%s", in.Label, listing)
			}
		case err != nil:
			t.Fatal(err)
		case !row.MatchString(listing):
			t.Errorf("no nvvm row for LLVM %s in:\n%s", in.Label, listing)
		}
	}
}

// TestReachCountsTranslatedInstantiableOps: with a store, the surface's
// translated, instantiable ops are counted judged and reached llc by the
// installation's judge, and the rest grouped by their outcomes; an op
// the surface cannot write or translate is not counted.
func TestReachCountsTranslatedInstantiableOps(t *testing.T) {
	lowers := opsurface.Lowering{Kind: opsurface.Intrinsic}
	s := opsurface.Surface{Dialect: "nvvm", Ops: []opsurface.Op{
		{Name: "nvvm.a", Lowering: lowers},
		{Name: "nvvm.b", Lowering: lowers},
		{Name: "nvvm.c", Lowering: lowers},
		{Name: "nvvm.d", Lowering: lowers},
		{Name: "nvvm.e", Lowering: lowers},
		{Name: "nvvm.pass", Lowering: opsurface.Lowering{Kind: opsurface.NoLowering}},
		{Name: "nvvm.unusable", Lowering: lowers, Unusable: &opsurface.Reason{Kind: "string-attr"}},
	}}
	v := func(k oracles.Kind, rule string) []oracles.Verdict {
		return []oracles.Verdict{{Oracle: "nvvm-op@trunk", Domain: "nvvmop", Kind: k, Rule: rule}}
	}
	var b tally.Ops
	b.Add("nvvm.a", v(oracles.Accept, "llc"))
	b.Add("nvvm.b", v(oracles.Error, "llc/pass-refused"))
	b.Add("nvvm.c", v(oracles.Reject, "verify"))
	b.Add("nvvm.c", v(oracles.Reject, "verify"))
	b.Add("nvvm.c", v(oracles.Error, "translate/pass-refused"))
	// Another installation's judge defines nvvm.d: trunk's unsupported
	// counts under its name.
	b.Add("nvvm.d", append(v(oracles.Unsupported, ""), oracles.Verdict{Oracle: "nvvm-op@23", Domain: "nvvmop", Kind: oracles.Accept, Rule: "llc"}))
	b.Add("nvvm.pass", v(oracles.Accept, "llc"))
	cov, asked := opCoverageOf(b.Coverage(), "nvvm-op@trunk")
	r := reach(s, cov, asked)
	if r.judgedText() != "3 (60%)" || r.reachedText() != "2 (40%)" {
		t.Errorf("judged %s, reached llc %s; want 3 (60%%), 2 (40%%)", r.judgedText(), r.reachedText())
	}
	want := []unreachedOps{
		{why: "no case judged", ops: []string{"nvvm.e"}},
		{why: "reject verify, error translate/pass-refused", ops: []string{"nvvm.c"}},
		{why: "unsupported", ops: []string{"nvvm.d"}},
	}
	if !reflect.DeepEqual(r.rest, want) {
		t.Errorf("the rest %+v, want %+v", r.rest, want)
	}
	none, asked := opCoverageOf(nil, "nvvm-op@23")
	if r := reach(s, none, asked); r.judgedText() != "-" || len(r.rest) != 0 {
		t.Errorf("an installation the store never asked: %+v", r)
	}
}
