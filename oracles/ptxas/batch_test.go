package ptxas

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// rngSeed is the random cases' seed: LEGALFUZZ_SEED when set, else fixed.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(20261121)
	if s := os.Getenv("LEGALFUZZ_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("LEGALFUZZ_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("random cases from seed %d (set LEGALFUZZ_SEED to replay)", seed)
	return seed
}

// randomCases decodes random bytes in every rendered domain until at least
// want cases fall on targets o judges, and returns them all, mixed. Half the
// inputs are seeds' canonical bytes with up to two random bytes changed, so
// that the sample holds legal cases too.
func randomCases(t *testing.T, o *Oracle, want int) []domain.Case {
	t.Helper()
	rng := rand.New(rand.NewPCG(rngSeed(t), 1))
	names := ptx.Domains()
	var cases []domain.Case
	for judged := 0; judged < want; {
		d, _ := fuzz.Lookup(names[rng.IntN(len(names))])
		b := make([]byte, 48)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if seeds := d.Seeds(); rng.IntN(2) == 0 {
			b = seeds[rng.IntN(len(seeds))].Encode()
			for range rng.IntN(3) {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
		}
		v, err := d.Decode(b)
		if err != nil {
			continue
		}
		if o.unsupported(v.Target()) == nil {
			judged++
		}
		cases = append(cases, domain.NewCase(d.Name, v))
	}
	return cases
}

// TestBatchedEqualsOneByOne: one module per target group and one process
// per case give identical verdicts, diagnostics included.
func TestBatchedEqualsOneByOne(t *testing.T) {
	o := realPTXAS(t)
	cases := randomCases(t, o, 130)
	batched := judge(t, o, cases)
	o.BatchSize = 1
	single := judge(t, o, cases)
	kinds := map[oracles.Kind]int{}
	for i := range cases {
		kinds[batched[i].Kind]++
		if !reflect.DeepEqual(batched[i], single[i]) {
			t.Errorf("%s %v:\nbatched   %s %q\none by one %s %q", cases[i].Domain, cases[i].Value,
				batched[i].Kind, batched[i].Diagnostic, single[i].Kind, single[i].Diagnostic)
		}
	}
	t.Logf("%d cases: %v", len(cases), kinds)
	if kinds[oracles.Accept] == 0 || kinds[oracles.Reject] == 0 {
		t.Fatalf("the sample has no accepts or no rejects: %v", kinds)
	}
}

// fakePTXAS writes a shell script standing in for ptxas: it answers
// --version as ptxas 12.4 does, runs body when the module holds marker, and
// otherwise assembles everything cleanly.
func fakePTXAS(t *testing.T, marker, body string) string {
	t.Helper()
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo 'Cuda compilation tools, release 12.4, V12.4.131'; exit 0; fi
for a in "$@"; do case "$a" in *.ptx) f="$a";; esac; done
if grep -q '` + marker + `' "$f"; then
` + body + `
fi
exit 0
`
	p := filepath.Join(t.TempDir(), "ptxas")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// markedBatch is five cp.async cases, the middle one with a destination
// address (0xbad0) that the fake ptxas looks for.
func markedBatch() []domain.Case {
	var cases []domain.Case
	for i := range 5 {
		v := cpForm(cpasync.F32, 4)
		v.DstAddr = uint32(0x100 * (i + 1))
		if i == 2 {
			v.DstAddr = 0xbad0
		}
		cases = append(cases, domain.NewCase(cpasync.Name, v))
	}
	return cases
}

// TestFakeToolFailures: a crash, a hang or unreadable output caused by one
// case of a batch gives that case an error or timeout verdict, and every
// other case of the batch its own verdict.
func TestFakeToolFailures(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       oracles.Kind
		diag       string
	}{
		{"segfault", "kill -SEGV $$", oracles.Error, "killed by signal segmentation fault"},
		{"internal error", "echo 'ptxas fatal   : Internal error: unexpected state' >&2; exit 255", oracles.Error, "Internal error"},
		{"hang", "sleep 30", oracles.Timeout, "did not finish within 1s"},
		{"garbage", "echo '@@@ \x01 not ptxas output'; exit 3", oracles.Error, "exit status 3"},
		{"warning", "echo \"ptxas $f, line 9; warning : Unused register\" >&2", oracles.Accept, ""},
		{"error line outside the module", "echo \"ptxas $f, line 99999; error   : out of range\" >&2; exit 255",
			oracles.Reject, "error   : out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LEGALFUZZ_PTXAS", fakePTXAS(t, "0xbad0", tc.body))
			o, st := Discover(context.Background())
			if o == nil {
				t.Fatalf("fake ptxas not found: %s", st.Reason)
			}
			o.Timeout = time.Second
			start := time.Now()
			vs := judge(t, o, markedBatch())
			for i, v := range vs {
				want, diag := oracles.Accept, ""
				if i == 2 {
					want, diag = tc.want, tc.diag
				}
				if v.Kind != want || !strings.Contains(v.Diagnostic, diag) {
					t.Errorf("case %d: %s %q, want %s containing %q", i, v.Kind, v.Diagnostic, want, diag)
				}
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("judging took %v", time.Since(start))
			}
		})
	}
}

// TestFakeToolNotStarted: a ptxas that cannot run is a harness failure, an
// error from Judge, not a verdict.
func TestFakeToolNotStarted(t *testing.T) {
	o := New(PTXAS124, tool.Tool{Name: "ptxas", Path: filepath.Join(t.TempDir(), "missing"), Version: "12.4.131"})
	if _, err := o.Judge(context.Background(), markedBatch()); err == nil {
		t.Fatal("Judge with a missing ptxas returned no error")
	}
}

// TestDuplicatesAndOrder: a case given twice is judged once and both
// positions get its verdict; verdicts keep the input order across groups.
func TestDuplicatesAndOrder(t *testing.T) {
	o := realPTXAS(t)
	ok := domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 4))
	bad := domain.NewCase(cpasync.Name, cpForm(cpasync.F32, 16))
	ldsmCase := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, sm90a))
	cases := []domain.Case{bad, ldsmCase, ok, bad, ok}
	vs := judge(t, o, cases)
	want := []oracles.Kind{oracles.Reject, oracles.Accept, oracles.Accept, oracles.Reject, oracles.Accept}
	for i, v := range vs {
		if v.Kind != want[i] {
			t.Errorf("case %d: %s %q, want %s", i, v.Kind, v.Diagnostic, want[i])
		}
	}
	if !reflect.DeepEqual(vs[0], vs[3]) {
		t.Errorf("a duplicate got another verdict: %+v vs %+v", vs[0], vs[3])
	}
}

// TestBatchesMatchJudge: Batches renders what Judge assembles, one run per
// architecture with one module per PTX version, and the command line names
// every module and the architecture.
func TestBatchesMatchJudge(t *testing.T) {
	o := New(PTXAS124, tool.Tool{Name: "ptxas", Path: "ptxas", Version: "12.4.131"})
	cases := markedBatch()
	bs, err := o.Batches(append(cases, seedCases(t, "ldsm")...))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) < 2 || len(bs[0].Files) != 1 || !strings.Contains(bs[0].Files[0].Text, ".target sm_80") {
		t.Fatalf("%d batches", len(bs))
	}
	for i, c := range cases {
		if bs[0].Cases[i].ID != c.ID || !strings.Contains(bs[0].Files[0].Text, ptx.EntryName(c.ID)) {
			t.Fatalf("first batch's case %d is %s, want %s", i, bs[0].Cases[i].ID, c.ID)
		}
	}
	args := o.CommandArgs(bs[0].Arch, "m0.ptx", "m1.ptx")
	if strings.Join(args, " ") != "-arch=sm_80 -O0 m0.ptx m1.ptx -o /dev/null" {
		t.Fatalf("args %q", args)
	}
}

// BenchmarkJudge times 1,000 assemblable cp.async cases (one target group)
// batched, at -O0 and -O3, and one process per case. Run with -benchtime=1x.
func BenchmarkJudge(b *testing.B) {
	o := realPTXAS(b)
	var cases []domain.Case
	for i := 0; len(cases) < 1000; i++ {
		v := cpForm(cpasync.F32, 4)
		v.DstAddr = uint32(16 * i)
		cases = append(cases, domain.NewCase(cpasync.Name, v))
	}
	for _, bench := range []struct {
		name  string
		batch int
		args  []string
	}{{"batched-O0", 0, nil}, {"batched-O3", 0, []string{}}, {"one-by-one-O0", 1, nil}} {
		b.Run(bench.name, func(b *testing.B) {
			o.BatchSize, o.Args = bench.batch, bench.args
			for b.Loop() {
				if _, err := o.Judge(context.Background(), cases); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
