package mutate

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/umma"
)

// TestDescribedRanges: the ranges Random draws from are the description's
// for a field, an array's entries and the fields of a struct inside the
// value (umma's modes), not only for top-level numbers.
func TestDescribedRanges(t *testing.T) {
	f, err := Describe(umma.Domain)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{"Swizzle[]": {0, 15}, "Rank": {1, 4}, "Modes[].Subs": {1, 3}, "Modes[].Shape[]": {1, 65535},
		"Modes[].Stride[]": {-1 << 31, 1<<31 - 1}}
	for _, l := range f.leaves {
		r, ok := want[l.key]
		if !ok {
			continue
		}
		if !l.ranged || l.lo != r[0] || l.hi != r[1] {
			t.Errorf("%s %v: ranged %v %d..%d, want %d..%d", l.key, l.path, l.ranged, l.lo, l.hi, r[0], r[1])
		}
	}
}
