package lattice_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/lattice"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// TestEveryDomainSweeps builds every domain's lattice: its rows are values
// of the domain that round trip, distinct, and hold every pair some row
// can hold, counted the same way twice.
func TestEveryDomainSweeps(t *testing.T) {
	for _, d := range fuzz.Domains() {
		t.Run(d.Name, func(t *testing.T) {
			l, err := lattice.For(d)
			if err != nil {
				t.Fatal(err)
			}
			if l.Len() == 0 || l.Pairs == 0 {
				t.Fatalf("%d rows, %d pairs: an empty sweep", l.Len(), l.Pairs)
			}
			seen := map[string]bool{}
			for i := range l.Len() {
				v := l.Row(i)
				if _, err := domain.RoundTrip(d, v); err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				id := domain.ID(d.Name, v.Encode())
				if seen[id] {
					t.Fatalf("row %d repeats case %s", i, id)
				}
				seen[id] = true
				if i > 0 && l.Covered(i+1) <= l.Covered(i) {
					t.Fatalf("row %d holds no new pair (%d then %d)", i, l.Covered(i), l.Covered(i+1))
				}
			}
			if got := l.Covered(l.Len()); got != l.Pairs {
				t.Errorf("the rows hold %d pairs, the lattice counts %d", got, l.Pairs)
			}
			total := 0
			for i, a := range l.Axes {
				for _, b := range l.Axes[i+1:] {
					total += len(a.Values) * len(b.Values)
				}
			}
			if l.Pairs+l.Unrealizable != total {
				t.Errorf("held %d + unrealizable %d != %d pairs of the axes", l.Pairs, l.Unrealizable, total)
			}
		})
	}
}

// TestSweepIsDeterministic: a sweep resumed on another night must find the
// same rows under the same fingerprint.
func TestSweepIsDeterministic(t *testing.T) {
	a, err := lattice.For(mma.Domain)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lattice.Build(mma.Domain)
	if a.Fingerprint != b.Fingerprint || a.Len() != b.Len() {
		t.Fatalf("two builds differ: %s/%d and %s/%d", a.Fingerprint, a.Len(), b.Fingerprint, b.Len())
	}
	for i := range a.Len() {
		if string(a.Row(i).Encode()) != string(b.Row(i).Encode()) {
			t.Fatalf("row %d differs", i)
		}
	}
}

// TestMMATypeTimesShape: every A type meets every shape the seeds name,
// the B, C and D types derived from it (a pair random mutation of one
// field at a time rarely makes: the types change together).
func TestMMATypeTimesShape(t *testing.T) {
	l, err := lattice.For(mma.Domain)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	derived := 0
	for i := range l.Len() {
		v := l.Row(i).(mma.Value)
		have[fmt.Sprint(v.AType, v.Shape)] = true
		if v.BType == v.AType && v.AType != mma.F32 {
			derived++
		}
	}
	for _, s := range mma.Domain.Seeds() {
		shape := s.(mma.Value).Shape
		for ty := range mma.Type(len(mma.Type(0).Enum())) {
			if !have[fmt.Sprint(ty, shape)] {
				t.Errorf("no row has a_type %s with shape %v", ty.Enum().Name(int(ty)), shape)
			}
		}
	}
	if derived == 0 {
		t.Error("no row derives b_type from a_type")
	}
}

// TestLDSMCountOneOff: a count one off its legal values (num_matrices 3)
// with the register count and cosize derived from it, for both ops: the
// case a verifier that checks only the derived fields lets through.
func TestLDSMCountOneOff(t *testing.T) {
	l, err := lattice.For(ldsm.Domain)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[ldsm.Op]bool{}
	for i := range l.Len() {
		v := l.Row(i).(ldsm.Value)
		if v.NumMatrices == 3 && v.RegisterCount == v.Cosize && int(v.RegisterCount) == ldsm.RegistersPerLane(v.Shape, 3) {
			ops[v.Op] = true
		}
	}
	if len(ops) != 2 {
		t.Errorf("rows with num_matrices 3 and consistent register counts cover ops %v, want both", ops)
	}
}

// TestEveryTarget: each known architecture is in the sweep of a domain
// that has a target.
func TestEveryTarget(t *testing.T) {
	l, err := lattice.For(mma.Domain)
	if err != nil {
		t.Fatal(err)
	}
	have := map[target.Arch]bool{}
	for i := range l.Len() {
		have[l.Row(i).Target().Arch] = true
	}
	for _, k := range target.Known() {
		if !have[k.Arch] {
			t.Errorf("no row for %s", k.Arch)
		}
	}
}

// TestRefusedPairsAreUnrealizable: a domain whose JSON form refuses a pair
// in every row counts it unrealizable, not held (ldsm refuses a known mode
// with another shape).
func TestRefusedPairsAreUnrealizable(t *testing.T) {
	l, err := lattice.For(ldsm.Domain)
	if err != nil {
		t.Fatal(err)
	}
	if l.Unrealizable == 0 {
		t.Fatal("no unrealizable pair in ldsm")
	}
	if _, err := ldsm.Domain.ParseJSON([]byte(`{"mode":"M88","shape":"m16n16"}`)); err == nil {
		t.Fatal("ldsm parses mode M88 with shape m16n16: the test's premise is gone")
	}
	for i := range l.Len() {
		js, _ := json.Marshal(l.Row(i))
		var v struct{ Mode, Shape string }
		_ = json.Unmarshal(js, &v)
		if v.Mode == "M88" && v.Shape == "m16n16" {
			t.Fatalf("row %d holds a refused pair: %s", i, js)
		}
	}
}

// TestDerivedPairsSpareRows: a pair a row holds through a derivation (B's
// type derived from A's, meeting every other axis of the row) is held, so
// no later row is spent on it. Counting only the pairs a row wrote, mma
// took 590 rows and ldsm 572; a new axis value may raise these bounds, a
// sweep that spends rows on pairs it holds may not.
func TestDerivedPairsSpareRows(t *testing.T) {
	for _, c := range []struct {
		d    domain.Domain
		most int
	}{{mma.Domain, 570}, {ldsm.Domain, 530}} {
		d, most := c.d, c.most
		l, err := lattice.For(d)
		if err != nil {
			t.Fatal(err)
		}
		if l.Len() > most {
			t.Errorf("%s: %d rows for %d pairs, want at most %d", d.Name, l.Len(), l.Pairs, most)
		}
	}
}
