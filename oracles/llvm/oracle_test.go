package llvm

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// discover returns the variant's oracle, or skips the test naming the tool.
func discover(t testing.TB, major int) *Oracle {
	t.Helper()
	return discoverIn(t, toolchaintest.Release(t, major))
}

// discoverIn returns the installation's oracle, or skips the test.
func discoverIn(t testing.TB, in toolchain.Installation) *Oracle {
	t.Helper()
	o, st := Discover(context.Background(), in)
	if o == nil {
		t.Skipf("%s not available (%s); install with %s", st.Name, st.Reason, st.Install)
	}
	return o
}

// sharedOracles are the oracles of tests that only judge, discovered once
// per variant: an oracle probes each target it meets once, and a fresh one
// per test would repeat those runs. Tests that change an oracle's settings
// or its tool use discover.
var sharedOracles struct {
	sync.Mutex
	m map[int]*Oracle
}

// shared returns the variant's shared oracle, or skips the test.
func shared(t *testing.T, major int) *Oracle {
	t.Helper()
	sharedOracles.Lock()
	defer sharedOracles.Unlock()
	if o := sharedOracles.m[major]; o != nil {
		return o
	}
	o := discover(t, major)
	if sharedOracles.m == nil {
		sharedOracles.m = map[int]*Oracle{}
	}
	sharedOracles.m[major] = o
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

// rule is the Rule of an Unsupported verdict for a declared reason.
func rule(field, class string) string { return reasons.New(field, class, "").Rule() }

func (w want) check(t *testing.T, got oracles.Verdict) {
	t.Helper()
	if got.Kind != w.kind || (w.rule != "" && got.Rule != w.rule) || !strings.Contains(got.Diagnostic, w.diag) {
		t.Errorf("got %s %s %q, want %s %s containing %q", got.Kind, got.Rule, got.Diagnostic, w.kind, w.rule, w.diag)
	}
}

func TestDiscoverReportsWhatEachLLCKnows(t *testing.T) {
	for _, tc := range []struct {
		major      int
		has, lacks string
	}{
		{19, "sm_90a", "sm_100a"},
		{22, "sm_100a", ""},
	} {
		t.Run(strconv.Itoa(tc.major), func(t *testing.T) {
			in := toolchaintest.Release(t, tc.major)
			discoverIn(t, in)
			o, st := Discover(context.Background(), in)
			if !st.Available || st.Version != o.Version() || st.Path == "" || st.Name != "llc@"+in.Label {
				t.Fatalf("status %+v", st)
			}
			if !strings.HasPrefix(st.Version, strconv.Itoa(tc.major)+".") {
				t.Errorf("version %q is not LLVM %d", st.Version, tc.major)
			}
			if !slices.Contains(st.Targets, tc.has) || (tc.lacks != "" && slices.Contains(st.Targets, tc.lacks)) {
				t.Errorf("targets %v: want %s, not %q", st.Targets, tc.has, tc.lacks)
			}
			if want := VariantOf(in).domains(); !slices.Equal(st.Domains, want) {
				t.Errorf("domains %v, want %v", st.Domains, want)
			}
		})
	}
}

func TestDiscoverMissingTool(t *testing.T) {
	in := toolchain.Installation{Label: "99", Dir: t.TempDir(), Version: "99.0.0", Major: 99}
	o, st := Discover(context.Background(), in)
	if o != nil || st.Available || !strings.Contains(st.Reason, "no such file") || st.Install == "" || st.Name != "llc@99" {
		t.Fatalf("oracle %v, status %+v: want unavailable with reason and install", o, st)
	}
}

// TestWrongMajorIsNotUsed puts llc 19 into an installation of LLVM 22: the
// version check must refuse it rather than judge tcgen05 with the wrong
// LLVM.
func TestWrongMajorIsNotUsed(t *testing.T) {
	o19 := discover(t, 19)
	in := toolchaintest.WithTool(t, toolchaintest.Release(t, 22), "llc", o19.tool.Path)
	if o, st := Discover(context.Background(), in); o != nil || !strings.Contains(st.Reason, "not the installation's 22.") {
		t.Fatalf("llc 19 accepted as llc 22: %+v", st)
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
