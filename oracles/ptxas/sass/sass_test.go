package sass

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// realSASS is the oracle over the installed tools, or skips the test.
func realSASS(t testing.TB) *Oracle {
	t.Helper()
	o, st := Discover(context.Background())
	if o == nil {
		t.Skipf("the sass oracle's tools are not all here (%s); run %s", st.Reason, st.Install)
	}
	return o
}

func seedCases(t testing.TB, names ...string) []domain.Case {
	t.Helper()
	var cases []domain.Case
	for _, name := range names {
		d, ok := fuzz.Lookup(name)
		if !ok {
			t.Fatalf("no domain %q", name)
		}
		for _, v := range d.Seeds() {
			cases = append(cases, domain.NewCase(name, v))
		}
	}
	return cases
}

// TestSeeds: every seed of every domain ptx renders that ptxas assembles
// round-trips: both disassemblers print the same code and the SASS holds
// what the table requires. A seed that does not means the table or the
// normalization is wrong, not that a tool is.
func TestSeeds(t *testing.T) {
	o := realSASS(t)
	cases := seedCases(t, ptx.Domains()...)
	vs := batchtest.Judge(t, o, cases)
	kinds := map[oracles.Kind]int{}
	for i, v := range vs {
		kinds[v.Kind]++
		if v.Kind == oracles.Error || v.Kind == oracles.Timeout {
			t.Errorf("%s seed %v: %s %s %q", cases[i].Domain, cases[i].Value, v.Kind, v.Rule, v.Diagnostic)
		}
	}
	t.Logf("%d seeds: %v", len(cases), kinds)
	if kinds[oracles.Accept] == 0 {
		t.Fatal("no seed round-tripped")
	}
}

var (
	sm80   = target.MustParse("sm_80", "")
	sm90a  = target.MustParse("sm_90a", "")
	sm100a = target.MustParse("sm_100a", "")
)

// cpForm is a cp.async of n elements of e on sm_80.
func cpForm(e cpasync.ElemType, n uint8) cpasync.Value {
	return cpasync.Value{Elem: e, SrcElem: e, DstElements: n, DstStride: 1, SrcStride: 1,
		DstAddr: 0x100, SrcAddr: 0x7f0000001000, Tgt: sm80}
}

// TestKnownAnswers: verdicts and values taken from the tools themselves,
// in one batch and one by one.
func TestKnownAnswers(t *testing.T) {
	o := realSASS(t)
	for _, tc := range []struct {
		name             string
		c                domain.Case
		kind             oracles.Kind
		rule, value, msg string
	}{
		{"ldmatrix x4", domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, sm90a)),
			oracles.Accept, "", "LDSM.16.M88.4", ""},
		{"stmatrix x4", domain.NewCase(ldsm.Name, ldsm.New(ldsm.Store, ldsm.M8N8, 4, false, ldsm.B16, sm90a)),
			oracles.Accept, "", "STSM.16.M88.4", ""},
		{"cp.async 4 bytes", domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 1)),
			oracles.Accept, "", "LDGSTS.E", ""},
		{"spec/ptxisa rejects .u16: ptxas's question", domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 1, false, ldsm.U16, sm90a)),
			oracles.Unsupported, "unspelled.deferred:verdict=spec-rejects", "", "whether ptxas assembles it is the ptxas oracle's question"},
		{"target ptxas 12.4 does not know", domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, sm100a)),
			oracles.Unsupported, "unspelled.tool:target=unknown-to-ptxas", "", "does not know target sm_100a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := batchtest.Judge(t, o, []domain.Case{tc.c})[0]
			if v.Kind != tc.kind || v.Rule != tc.rule || v.Value != tc.value || !strings.Contains(v.Diagnostic, tc.msg) {
				t.Errorf("%s rule %q value %q %q, want %s rule %q value %q containing %q",
					v.Kind, v.Rule, v.Value, v.Diagnostic, tc.kind, tc.rule, tc.value, tc.msg)
			}
		})
	}
}

// fakeTool writes a script standing in for a disassembler; $REAL in body
// is the real tool.
func fakeTool(t *testing.T, real, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake")
	script := "#!/bin/sh\nREAL='" + real + "'\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFakeDisassemblers: a disassembler that fails, hangs or prints other
// code than its peer on a cubin ptxas wrote gets the case an error or a
// timeout with the step's rule; one that loses an LDGSTS in both listings
// is dropped work, one that spells it .BYPASS (cp.async.cg's) a wrong value.
func TestFakeDisassemblers(t *testing.T) {
	real := realSASS(t)
	cases := []domain.Case{domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 1)), domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 2))}
	for _, tc := range []struct {
		name, nvdisasm, cuobjdump string
		kind                      oracles.Kind
		rule, msg                 string
	}{
		{"exit 1", `echo "nvdisasm fatal   : Could not read $2" >&2; exit 1`, "", oracles.Error,
			"nvdisasm/refused", "nvdisasm failed (exit status 1): nvdisasm fatal   : Could not read FILE"},
		{"crash", "kill -SEGV $$", "", oracles.Error, "nvdisasm", "killed by signal"},
		{"hang", "sleep 30", "", oracles.Timeout, "nvdisasm", "did not finish within 3s"},
		{"error with exit 0", `"$REAL" "$@"; echo "nvdisasm error   : bad section" >&2`, "", oracles.Error,
			"nvdisasm/exit-0", "bad section"},
		{"other code", `"$REAL" "$@" | sed 's/LDGSTS/LDGSTS.X/'`, "", oracles.Error,
			"sass/disagree", "nvdisasm and cuobjdump disagree on ENTRY:\nnvdisasm:  /*00d0*/ LDGSTS.X.E"},
		{"LDGSTS lost", `"$REAL" "$@" | sed '/LDGSTS/d'`, `"$REAL" "$@" | sed '/LDGSTS/d'`, oracles.Error,
			"sass/dropped", "where the SASS has no LDGSTS"},
		{"LDGSTS bypasses L1", `"$REAL" "$@" | sed 's/LDGSTS\.E/LDGSTS.E.BYPASS/'`, `"$REAL" "$@" | sed 's/LDGSTS\.E/LDGSTS.E.BYPASS/'`, oracles.Error,
			"sass/value", "sass: cp.async.ca.shared.global assembled to LDGSTS.E.BYPASS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dis, dump := real.nvdisasm, real.cuobjdmp
			dis.Path = fakeTool(t, real.nvdisasm.Path, tc.nvdisasm)
			if tc.cuobjdump != "" {
				dump.Path = fakeTool(t, real.cuobjdmp.Path, tc.cuobjdump)
			}
			o := New(real.ptxas, dis, dump)
			// Only the hanging tool should meet the timeout: on a loaded
			// machine the shell and the real tools behind the fakes take
			// seconds.
			o.Timeout = time.Minute
			if tc.kind == oracles.Timeout {
				o.Timeout = 3 * time.Second
			}
			for i, v := range batchtest.Judge(t, o, cases) {
				if v.Kind != tc.kind || v.Rule != tc.rule || !strings.Contains(v.Diagnostic, tc.msg) {
					t.Errorf("case %d: %s rule %q %q, want %s rule %q containing %q", i, v.Kind, v.Rule, v.Diagnostic, tc.kind, tc.rule, tc.msg)
				}
			}
		})
	}
}

// TestConformance runs the batch engine's conformance suite, with a fake
// nvdisasm behind the real ptxas, on twelve seeds ptxas accepts and twelve
// it rejects (one by one, each costs four processes).
func TestConformance(t *testing.T) {
	real := realSASS(t)
	seeds := seedCases(t, "cpasync", "ldsm", "mma")
	var cases []domain.Case
	n := map[oracles.Kind]int{}
	for i, v := range batchtest.Judge(t, real.asm, seeds) {
		if (v.Kind == oracles.Accept || v.Kind == oracles.Reject) && n[v.Kind] < 12 {
			n[v.Kind]++
			cases = append(cases, seeds[i])
		}
	}
	batchtest.Run(t, batchtest.Subject{
		Cases: cases,
		Real: func(t *testing.T, n int) oracles.Oracle {
			o := realSASS(t)
			o.BatchSize, o.AskRejected = n, true
			return o
		},
		Fake: func(t *testing.T, path string) oracles.Oracle {
			dis := real.nvdisasm
			dis.Path = path
			o := New(real.ptxas, dis, real.cuobjdmp)
			o.Timeout, o.AskRejected = time.Second, true
			return o
		},
	})
}

// BenchmarkSeeds times judging every seed of the domains ptx renders with
// ptxas alone and with the round trip (which runs ptxas's judgement too),
// batched. Run with -benchtime=1x.
func BenchmarkSeeds(b *testing.B) {
	o := realSASS(b)
	cases := seedCases(b, ptx.Domains()...)
	for _, bench := range []struct {
		name string
		o    oracles.Oracle
	}{{"ptxas", o.asm}, {"sass", o}} {
		b.Run(bench.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bench.o.Judge(context.Background(), cases); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTruncatedCubin: when ptxas (here a stand-in that accepts everything)
// writes a cubin that is not an ELF file, the real nvdisasm refuses it in
// its own words ("Object file ... appears truncated"), and the case gets an error naming that step.
func TestTruncatedCubin(t *testing.T) {
	real := realSASS(t)
	fake := filepath.Join(t.TempDir(), "ptxas")
	script := "#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n" +
		"case \"$out\" in *.cubin) printf '\\177ELF truncated' >\"$out\";; esac\nexit 0\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	asm := real.ptxas
	asm.Path = fake
	o := New(asm, real.nvdisasm, real.cuobjdmp)
	v := batchtest.Judge(t, o, []domain.Case{domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 1))})[0]
	if v.Kind != oracles.Error || v.Rule != "nvdisasm/refused" || !strings.Contains(v.Diagnostic, "nvdisasm fatal   : Object file FILE appears truncated") {
		t.Errorf("%s rule %q %q, want error nvdisasm/refused: appears truncated", v.Kind, v.Rule, v.Diagnostic)
	}
}

// TestAskRejectedMirrorsPtxas: asked about a case spec/ptxisa rejects, the
// judge gives ptxas's reject in ptxas's words (a known answer of ptxas
// 12.4).
func TestAskRejectedMirrorsPtxas(t *testing.T) {
	o := realSASS(t)
	o.AskRejected = true
	c := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 1, false, ldsm.U16, sm90a))
	v := batchtest.Judge(t, o, []domain.Case{c})[0]
	if v.Kind != oracles.Reject || v.Rule != "ptxas" || !strings.Contains(v.Diagnostic, "Unexpected instruction types specified for 'ldmatrix'") {
		t.Errorf("got %s %q %q, want reject by ptxas naming the types", v.Kind, v.Rule, v.Diagnostic)
	}
}
