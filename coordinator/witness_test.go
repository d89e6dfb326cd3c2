package coordinator

import (
	"context"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// mmaCase parses an mma case from its JSON form.
func mmaCase(t *testing.T, js string) domain.Case {
	t.Helper()
	v, err := mma.ParseJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewCase(mma.Name, v)
}

// minimizedRules minimizes b and returns it with the rules its minimized
// case breaks.
func minimizedRules(t *testing.T, s *store.Store, orcs []oracles.Oracle, b store.Bucket) (store.Bucket, []string) {
	t.Helper()
	b, err := MinimizeBucket(context.Background(), s, oracles.Local{Oracles: orcs}, b, MinimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b, breaks(t, s, b)
}

// breaks lists the spec/ptxisa rules b's minimized case breaks.
func breaks(t *testing.T, s *store.Store, b store.Bucket) []string {
	t.Helper()
	rec, ok, err := s.Case(b.Minimized)
	if err != nil || !ok {
		t.Fatalf("bucket %s: minimized case %q not stored (%v, note %q)", b.Key, b.Minimized, err, b.MinimizeNote)
	}
	_, v, err := rec.Decode()
	if err != nil {
		t.Fatal(err)
	}
	fired, err := rules.FiringRules(rules.PTXISA, rec.Domain, v)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range fired {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestWitnessBreaksTheOneRuleTheToolMisjudges, on ptxas 12.4: a bf16
// mma.sync m8n8k4 with A and B row-major breaks shape (m8n8k4 is f16 and
// f64 only) and layout (bf16 is row.col), and ptxas accepts it. ptxas
// refuses a bf16 layout other than row.col on a bf16 shape on its own
// ("Illegal blayout"); what it lets through is the shape. The minimized
// case breaks shape alone, and no witness is split off for the layout.
// (The old minimizer kept the first rule and only shrank: B's layout must
// move up to col, so it kept both rules broken.)
func TestWitnessBreaksTheOneRuleTheToolMisjudges(t *testing.T) {
	p, st := ptxas.Discover(context.Background())
	if p == nil {
		t.Skipf("ptxas 12.4 not installed: %s", st.Reason)
	}
	orcs := []oracles.Oracle{spec.New(rules.PTXISA), p}
	s := storetest.Open(t, "")
	c := mmaCase(t, `{"shape": [8, 8, 4], "a_type": "bf16", "a_layout": "row", "b_layout": "row", "target": "sm_80"}`)
	b := plantPair(t, s, orcs, policy.Pair{A: oracles.SpecPTXISA, B: oracles.PTXAS, On: policy.OnVerdict}, c)
	b, rules := minimizedRules(t, s, orcs, b)
	if !slices.Equal(rules, []string{"ptxisa.mma.shape"}) || len(b.Split) != 0 || b.Signature.Rule != "ptxisa.mma.shape" {
		t.Fatalf("bucket %s (split %v) minimized to a case breaking %v; want shape alone, no split", b.Title, b.Split, rules)
	}
}

// TestWitnessSplit: the seed rule set (spec/seed, judged as a tool)
// accepts an f16 mma whose C is f64 and D f16: it breaks accumulator-type
// and dtype-ctype, and the seed's verifier lacks both checks. The bucket,
// named after the first, is split: it keeps a witness that breaks
// accumulator-type alone, and a second bucket holds one that breaks
// dtype-ctype alone.
func TestWitnessSplit(t *testing.T) {
	s := storetest.Open(t, "")
	c := mmaCase(t, `{"shape": [16, 8, 8], "a_type": "f16", "c_type": "f64", "d_type": "f16", "target": "sm_80"}`)
	if fired, _ := rules.FiringRules(rules.PTXISA, mma.Name, c.Value); len(fired) != 2 {
		t.Fatalf("the planted case breaks %v", fired)
	}
	b, ok := plant(t, s, specOracles(), c)
	if !ok {
		t.Fatal("spec/seed and spec/ptxisa agree on the planted case")
	}
	b, rules := minimizedRules(t, s, specOracles(), b)
	if !slices.Equal(rules, []string{"ptxisa.mma.accumulator-type"}) || len(b.Split) != 1 {
		t.Fatalf("bucket %s minimized to a case breaking %v, split %v; want accumulator-type alone and one split", b.Title, rules, b.Split)
	}
	split, ok, err := s.Bucket(b.Split[0])
	if err != nil || !ok {
		t.Fatalf("split bucket %s: %v", b.Split[0], err)
	}
	if got := breaks(t, s, split); !slices.Equal(got, []string{"ptxisa.mma.dtype-ctype"}) || split.Signature.Rule != "ptxisa.mma.dtype-ctype" || split.Reliability != 3 {
		t.Fatalf("split bucket %s (reliability %d) breaks %v; want dtype-ctype alone", split.Title, split.Reliability, got)
	}
	if all, _ := s.Buckets(); len(all) != 2 {
		t.Fatalf("%d buckets, want the bucket and its split", len(all))
	}
}
