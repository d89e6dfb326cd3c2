package coordinator

import (
	"context"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

var specPair = policy.Pair{A: oracles.SpecPTXISA, B: oracles.SpecSeed, On: policy.OnVerdict}

// plant stores a case, judges it with both spec sets, and records their
// disagreement as a bucket; it returns the bucket, or false if they agree.
func plant(t *testing.T, s *store.Store, orcs []oracles.Oracle, c domain.Case) (store.Bucket, bool) {
	t.Helper()
	return plantOn(t, s, orcs, specPair, c)
}

// plantPair is plant for any pair; the pair must disagree on c.
func plantPair(t *testing.T, s *store.Store, orcs []oracles.Oracle, pair policy.Pair, c domain.Case) store.Bucket {
	t.Helper()
	b, ok := plantOn(t, s, orcs, pair, c)
	if !ok {
		t.Fatalf("%s and %s agree on the planted case", pair.A, pair.B)
	}
	return b
}

func plantOn(t *testing.T, s *store.Store, orcs []oracles.Oracle, pair policy.Pair, c domain.Case) (store.Bucket, bool) {
	t.Helper()
	pol := policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}
	bs := storetest.Plant(t, s, c, pol, storetest.Judge(t, orcs, c))
	if len(bs) == 0 {
		return store.Bucket{}, false
	}
	return bs[0], true
}

func specOracles() []oracles.Oracle {
	return []oracles.Oracle{spec.New(spec.PTXISA), spec.New(spec.Seed)}
}

// TestMinimizePlantedKindWord: a legal, cluttered block-scaled mxf8f6f4
// instruction on cta_group::1 trips the seed's ws-on-bit-0 overlay (rule 9)
// while the PTX ISA accepts it. Its minimum is known: the fewest fields that
// keep it legal for ptxisa and keep bit 0 set for the seed.
func TestMinimizePlantedKindWord(t *testing.T) {
	s := storetest.Open(t, "")
	sm100a := target.MustParse("sm_100a", "")
	v := kindword.Value{Kind: kindword.MXF8F6F4, CTAGroup: 1, BlockScale: true, ScaleVec: kindword.Scale1X,
		CollectorA: kindword.LastUse, ATMem: true, ArchConditional: true, Tgt: target.MustParse("sm_100a", "8.8")}
	b, ok := plant(t, s, specOracles(), domain.NewCase(kindword.Name, v))
	if !ok {
		t.Fatal("the planted case did not disagree")
	}
	b, err := MinimizeBucket(context.Background(), s, oracles.Local{Oracles: specOracles()}, b, MinimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := kindword.Value{Kind: kindword.MXF8F6F4, CTAGroup: 1, BlockScale: true, Tgt: sm100a}
	rec, ok, err := s.Case(b.Minimized)
	if err != nil || !ok {
		t.Fatalf("minimized case %q not stored: %v", b.Minimized, err)
	}
	got, _ := kindword.Decode(rec.Data)
	if got != want {
		t.Fatalf("minimized to %+v, want %+v", got, want)
	}
	if b.Reliability != 3 || b.ReChecks != 3 {
		t.Fatalf("reliability %d/%d, want 3/3", b.Reliability, b.ReChecks)
	}
	if vs, _ := s.Verdicts(b.Minimized); len(vs) != 2 {
		t.Fatalf("minimized case has %d stored verdicts, want 2", len(vs))
	}
}

// TestMinimizeEveryDomain plants each domain's first seed-vs-ptxisa
// disagreement and checks the minimized case replays to the same signature.
func TestMinimizeEveryDomain(t *testing.T) {
	for _, d := range fuzz.Domains() {
		t.Run(d.Name, func(t *testing.T) {
			s := storetest.Open(t, "")
			for _, v := range d.Seeds() {
				b, ok := plant(t, s, specOracles(), domain.NewCase(d.Name, v))
				if !ok {
					continue
				}
				b, err := MinimizeBucket(context.Background(), s, oracles.Local{Oracles: specOracles()}, b, MinimizeOptions{Budget: 150})
				if err != nil {
					t.Fatal(err)
				}
				rec, _, _ := s.Case(b.Minimized)
				mv, err := d.Decode(rec.Data)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, same, err := sameSignature(context.Background(), oracles.Local{Oracles: specOracles()}, b, domain.NewCase(d.Name, mv)); err != nil || !same {
					t.Fatalf("bucket %s: minimized case does not replay to its signature (%v)", b.Title, err)
				}
				return
			}
			t.Skipf("no seed of %s where the seed and ptxisa sets disagree", d.Name)
		})
	}
}

func TestMinimizeWithoutOracleLeavesNote(t *testing.T) {
	s := storetest.Open(t, "")
	c := domain.NewCase(kindword.Name, kindword.Seeds()[0])
	if _, err := s.AddCases("", []store.CaseRecord{{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode()}}); err != nil {
		t.Fatal(err)
	}
	b := store.Bucket{Key: "k", Example: c.ID, Signature: policy.Signature{Domain: c.Domain,
		Pair: policy.Pair{A: oracles.SpecPTXISA, B: "gpu", On: policy.OnVerdict}}}
	b, err := MinimizeBucket(context.Background(), s, oracles.Local{Oracles: specOracles()}, b, MinimizeOptions{})
	if err != nil || !strings.Contains(b.MinimizeNote, "gpu: oracle not available") || b.Minimized != "" {
		t.Fatalf("bucket %+v, err %v: want a note saying gpu is not available", b, err)
	}
}

// TestMinimizeKeepsTheReferenceVerdict: a tool error's bucket key ignores
// spec/ptxisa's rule, so without more the minimizer may trade a legal case
// for an illegal one (a wgmma moved to sm_80) that still errs; the bucket's
// story ("the case is legal, the tool fails") must hold for the minimized
// case too.
func TestMinimizeKeepsTheReferenceVerdict(t *testing.T) {
	errs := testoracle.New(testoracle.Config{Name: "errs", Kind: oracles.Error, Diagnostic: "lowering: it broke"})
	orcs := []oracles.Oracle{spec.New(spec.PTXISA), errs}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "errs", On: policy.OnVerdict}
	s := storetest.Open(t, "")
	var legal domain.Case
	for _, v := range wgmma.Seeds() {
		if c := domain.NewCase(wgmma.Name, v); judgeOne(t, orcs[0], c).Kind == oracles.Accept {
			legal = c
			break
		}
	}
	b := plantPair(t, s, orcs, pair, legal)
	if b.Signature.SpecKind != oracles.Accept {
		t.Fatalf("planted bucket's reference verdict is %q, want accept", b.Signature.SpecKind)
	}
	b, err := MinimizeBucket(context.Background(), s, oracles.Local{Oracles: orcs}, b, MinimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := s.Case(b.Minimized)
	if err != nil || !ok {
		t.Fatalf("no minimized case: %v", err)
	}
	v, err := wgmma.Decode(rec.Data)
	if err != nil {
		t.Fatal(err)
	}
	if got := judgeOne(t, orcs[0], domain.NewCase(wgmma.Name, v)); got.Kind != oracles.Accept {
		t.Fatalf("minimized to %+v, which spec/ptxisa rejects (%s): no longer the bucket's legal case", v, got.Rule)
	}
}

func judgeOne(t *testing.T, o oracles.Oracle, c domain.Case) oracles.Verdict {
	t.Helper()
	vs, err := o.Judge(context.Background(), []domain.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

// TestMinimizeBucketsSideBySide: buckets minimized several at a time end
// as they do one at a time, each reported once.
func TestMinimizeBucketsSideBySide(t *testing.T) {
	minimized := func(width int) map[string]string {
		s := storetest.Open(t, "")
		var buckets []store.Bucket
		for _, d := range fuzz.Domains() {
			for _, v := range d.Seeds() {
				if b, ok := plant(t, s, specOracles(), domain.NewCase(d.Name, v)); ok {
					buckets = append(buckets, b)
					break
				}
			}
		}
		out := map[string]string{}
		err := MinimizeBuckets(context.Background(), s, oracles.Local{Oracles: specOracles()}, buckets, MinimizeOptions{Budget: 100}, width,
			func(b store.Bucket) {
				if _, twice := out[b.Key]; twice || b.Minimized == "" {
					t.Errorf("bucket %s reported again, or not minimized (%s)", b.Key, b.MinimizeNote)
				}
				out[b.Key] = b.Minimized
			})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != len(buckets) || len(buckets) < 3 {
			t.Fatalf("%d of %d buckets reported; want every one of at least 3", len(out), len(buckets))
		}
		return out
	}
	one, four := minimized(1), minimized(4)
	for key, id := range one {
		if four[key] != id {
			t.Errorf("bucket %s: minimized to %s one at a time, %s four at a time", key, id, four[key])
		}
	}
}

// TestReplayNightSideBySide: the night replays every bucket it did not
// find, several at a time, and counts each once.
func TestReplayNightSideBySide(t *testing.T) {
	s := storetest.Open(t, "")
	n := 0
	for _, d := range fuzz.Domains() {
		for _, v := range d.Seeds() {
			if _, ok := plant(t, s, specOracles(), domain.NewCase(d.Name, v)); ok {
				n++
				break
			}
		}
	}
	got, err := ReplayNight(context.Background(), s, oracles.Local{Oracles: specOracles()}, "tonight")
	if err != nil || got.Reproduced != n || got.Fixed+got.Skipped != 0 || n < 3 {
		t.Fatalf("night replay %+v (%v); want all %d buckets reproduced", got, err, n)
	}
	buckets, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		if !b.SeenIn("tonight") {
			t.Errorf("bucket %s: no sighting tonight: %+v", b.Key, b.Nights)
		}
	}
}
