package llvm

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// discover returns the variant's oracle, or skips the test naming the tool.
func discover(t *testing.T, v Variant) *Oracle {
	t.Helper()
	o, st := Discover(context.Background(), v)
	if o == nil {
		t.Skipf("%s not available (%s); install with %s", v.Name, st.Reason, st.Install)
	}
	return o
}

// sharedOracles are the oracles of tests that only judge, discovered once
// per variant: an oracle probes each target it meets once, and a fresh one
// per test would repeat those runs. Tests that change an oracle's settings
// or its tool use discover.
var sharedOracles struct {
	sync.Mutex
	m map[string]*Oracle
}

// shared returns the variant's shared oracle, or skips the test.
func shared(t *testing.T, v Variant) *Oracle {
	t.Helper()
	sharedOracles.Lock()
	defer sharedOracles.Unlock()
	if o := sharedOracles.m[v.Name]; o != nil {
		return o
	}
	o := discover(t, v)
	if sharedOracles.m == nil {
		sharedOracles.m = map[string]*Oracle{}
	}
	sharedOracles.m[v.Name] = o
	return o
}

// judge judges cases and checks the one-verdict-per-case contract.
func judge(t *testing.T, o *Oracle, cases []domain.Case) []oracles.Verdict {
	t.Helper()
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatalf("%s: Judge: %v", o.Name(), err)
	}
	if len(vs) != len(cases) {
		t.Fatalf("%s: %d verdicts for %d cases", o.Name(), len(vs), len(cases))
	}
	for i, v := range vs {
		if v.Case != cases[i].ID || v.Oracle != o.Name() || v.Kind == "" {
			t.Fatalf("%s: verdict %d = %+v, not about case %s", o.Name(), i, v, cases[i].ID)
		}
		if v.Rule == RuleInvalidIR {
			t.Errorf("%s: case %v rendered invalid IR: %s", o.Name(), cases[i].Value, v.Diagnostic)
		}
	}
	return vs
}

// want is a verdict pinned from running llc by hand.
type want struct {
	kind oracles.Kind
	rule string
	diag string // a substring of the diagnostic
}

func (w want) check(t *testing.T, got oracles.Verdict) {
	t.Helper()
	if got.Kind != w.kind || (w.rule != "" && got.Rule != w.rule) || !strings.Contains(got.Diagnostic, w.diag) {
		t.Errorf("got %s %s %q, want %s %s containing %q", got.Kind, got.Rule, got.Diagnostic, w.kind, w.rule, w.diag)
	}
}

func TestDiscoverReportsWhatEachLLCKnows(t *testing.T) {
	for _, tc := range []struct {
		v          Variant
		has, lacks string
	}{
		{LLC19, "sm_90a", "sm_100a"},
		{LLC22, "sm_100a", ""},
	} {
		t.Run(tc.v.Name, func(t *testing.T) {
			discover(t, tc.v)
			o, st := Discover(context.Background(), tc.v)
			if !st.Available || st.Version != o.Version() || st.Path == "" || st.Name != tc.v.Name {
				t.Fatalf("status %+v", st)
			}
			if !strings.HasPrefix(st.Version, strings.TrimPrefix(tc.v.Name, "llc")+".") {
				t.Errorf("version %q is not LLVM %s", st.Version, tc.v.Name)
			}
			if !slices.Contains(st.Targets, tc.has) || (tc.lacks != "" && slices.Contains(st.Targets, tc.lacks)) {
				t.Errorf("targets %v: want %s, not %q", st.Targets, tc.has, tc.lacks)
			}
			if !slices.Equal(st.Domains, tc.v.domains()) {
				t.Errorf("domains %v, want %v", st.Domains, tc.v.domains())
			}
		})
	}
}

func TestDiscoverMissingTool(t *testing.T) {
	v := Variant{Name: "llc99", Major: 99, Spec: llcSpec("llc99", 99, "LEGALFUZZ_LLC99_TEST", "llc-99-legalfuzz-test")}
	o, st := Discover(context.Background(), v)
	if o != nil || st.Available || !strings.Contains(st.Reason, "not found") || st.Install != "make oracles" {
		t.Fatalf("oracle %v, status %+v: want unavailable with reason and install", o, st)
	}
}

// TestWrongMajorIsNotUsed points an llc22 variable at llc 19: the version
// check must refuse it rather than judge tcgen05 with the wrong LLVM.
func TestWrongMajorIsNotUsed(t *testing.T) {
	o19 := discover(t, LLC19)
	t.Setenv("LEGALFUZZ_LLC22_TEST", o19.tool.Path)
	v := Variant{Name: "llc22", Major: 22, Spec: llcSpec("llc22", 22, "LEGALFUZZ_LLC22_TEST", "llc-22-absent")}
	if o, st := Discover(context.Background(), v); o != nil || !strings.Contains(st.Reason, "does not match") {
		t.Fatalf("llc 19 accepted as llc22: %+v", st)
	}
}

// findTool finds name where Locate would look, or returns "".
func findTool(t *testing.T, name string) string {
	t.Helper()
	for _, d := range tool.OraclesBinDirs() {
		if p := filepath.Join(d, name); fileExists(p) {
			return p
		}
	}
	p, _ := exec.LookPath(name)
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
