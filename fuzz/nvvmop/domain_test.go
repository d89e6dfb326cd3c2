package nvvmop

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// full is a case with every part set: operands, segments, results and
// attributes.
var full = Value{Op: "nvvm.x", Operands: []string{"i32", "!llvm.ptr<3>"}, Segments: []int{1, 1}, Results: []string{"i32"},
	Attrs: []Attr{{"a", "1 : i32"}, {"b", "#nvvm.shfl_kind<bfly>"}}, Arch: target.MustParse("sm_90", "")}

var suite = domaintest.Suite{
	Domain:  Domain,
	SeedEnv: "NVVMOP_SEED",
	Seed:    0x6e76766d6f70,
	N:       5000,
	MaxLen:  48,
	Full:    full,
}

func TestDomain(t *testing.T) { suite.Run(t) }

// TestSnapshotOps: the embedded snapshot has the ops the chain judges,
// and the empty input is the first one's first case.
func TestSnapshotOps(t *testing.T) {
	if n := len(Ops()); n < 150 {
		t.Fatalf("the snapshot has %d ops a case can be written of, want over 150", n)
	}
	v, err := Decode(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := First(Ops()[0])
	if err != nil {
		t.Fatal(err)
	}
	if domain.NewCase(Name, v).ID != domain.NewCase(Name, want).ID {
		t.Errorf("Decode(nil) = %+v, want %+v", v, want)
	}
}

// TestDecodeReachesEveryOp: random bytes reach every op of the snapshot,
// and targets other than each op's first.
func TestDecodeReachesEveryOp(t *testing.T) {
	ops := map[string]bool{}
	for i := range 1 << 16 {
		v, _ := Decode([]byte{byte(i >> 8), byte(i)})
		ops[v.(Value).Op] = true
	}
	if len(ops) != len(Ops()) {
		t.Errorf("two bytes reach %d ops of %d", len(ops), len(Ops()))
	}
}
