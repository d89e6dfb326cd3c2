package mutate_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/mutate"
)

var (
	describeOnce sync.Once
	described    []*mutate.Fields
	describeErr  error
)

// allFields describes every domain once per test binary.
func allFields(t testing.TB) []*mutate.Fields {
	t.Helper()
	describeOnce.Do(func() {
		for _, d := range fuzz.Domains() {
			f, err := mutate.Describe(d)
			if err != nil {
				describeErr = err
				return
			}
			described = append(described, f)
		}
	})
	if describeErr != nil {
		t.Fatal(describeErr)
	}
	return described
}

// checkRoundTrip fails unless v is a value of d that decodes from its own
// canonical bytes to itself.
func checkRoundTrip(t testing.TB, d domain.Domain, v domain.Value) {
	t.Helper()
	back, err := d.Decode(v.Encode())
	if err != nil {
		t.Fatalf("%s: decode(encode(%v)): %v", d.Name, v, err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Fatalf("%s: decode(encode(v)) = %+v, want %+v", d.Name, back, v)
	}
}

// exercise generates one value and mutates it with the seeds as donors,
// checking both results; it reports whether the mutation changed the value.
func exercise(t testing.TB, f *mutate.Fields, rnd *rand.Rand) bool {
	t.Helper()
	d := f.Domain()
	v, ops, err := f.Generate(rnd)
	if err != nil {
		return false // possible in principle; counted by the caller
	}
	if len(ops) == 0 {
		t.Fatalf("%s: generated %v with no ops", d.Name, v)
	}
	checkRoundTrip(t, d, v)
	m, ops, err := f.Mutate(v, d.Seeds(), rnd)
	if err != nil {
		return false
	}
	checkRoundTrip(t, d, m)
	if slices.Equal(m.Encode(), v.Encode()) {
		t.Fatalf("%s: mutation %v returned the value unchanged: %v", d.Name, ops, v)
	}
	return true
}

// TestMutateEveryDomain generates and mutates values of every domain: every
// result round trips, and nearly every mutation changes its value.
func TestMutateEveryDomain(t *testing.T) {
	seed := domaintest.Seed(t, "MUTATE_SEED", 0x6d75746174)
	n := domaintest.Iterations(2000, 200)
	for _, f := range allFields(t) {
		t.Run(f.Domain().Name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 1))
			changed := 0
			distinct := map[string]bool{}
			for range n {
				if exercise(t, f, rnd) {
					changed++
				}
				if v, _, err := f.Generate(rnd); err == nil {
					distinct[string(v.Encode())] = true
				}
			}
			if changed < n*9/10 {
				t.Errorf("only %d of %d mutations changed their value", changed, n)
			}
			if len(distinct) < n/4 {
				t.Errorf("only %d distinct values in %d generations", len(distinct), n)
			}
		})
	}
}

// TestDescribeLearnsEnumsAndBoundaries checks the field description of one
// domain by what mutation draws: every kind index is drawn (the enumeration
// size was found), and a boundary value of the seeds is drawn.
func TestDescribeLearnsEnumsAndBoundaries(t *testing.T) {
	f, err := mutate.Describe(kindword.Domain)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	kinds := map[kindword.Kind]bool{}
	scaleD := map[uint8]bool{}
	for range 5000 {
		v, _, err := f.Generate(rnd)
		if err != nil {
			continue
		}
		kv := v.(kindword.Value)
		kinds[kv.Kind] = true
		scaleD[kv.ScaleInputD] = true
	}
	if len(kinds) != len(kindword.Kinds) {
		t.Errorf("drew kinds %v, want all %d", kinds, len(kindword.Kinds))
	}
	if !scaleD[15] || !scaleD[0] {
		t.Errorf("drew scale-input-d %v, want the boundaries 0 and 15", scaleD)
	}
}

// TestMutateRefusesAnotherDomainsValue checks the type guard.
func TestMutateRefusesAnotherDomainsValue(t *testing.T) {
	fs := allFields(t)
	other := fs[1].Domain().Seeds()[0]
	if _, _, err := fs[0].Mutate(other, nil, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatalf("%s mutated a %T", fs[0].Domain().Name, other)
	}
}

// FuzzMutate drives generation and mutation of every domain from fuzz
// bytes: they never panic, and every value they return round trips.
func FuzzMutate(f *testing.F) {
	for i := range fuzz.Domains() {
		f.Add(uint8(i), uint64(i)*7919, []byte{})
	}
	f.Fuzz(func(t *testing.T, dom uint8, seed uint64, donor []byte) {
		fs := allFields(t)
		fd := fs[int(dom)%len(fs)]
		rnd := rand.New(rand.NewPCG(seed, uint64(dom)))
		d := fd.Domain()
		donors := d.Seeds()[:1]
		if v, err := d.Decode(donor); err == nil {
			donors = append(donors, v)
			if m, _, err := fd.Mutate(v, donors, rnd); err == nil {
				checkRoundTrip(t, d, m)
			}
		}
		exercise(t, fd, rnd)
	})
}
