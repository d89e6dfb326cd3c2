package cuda

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// ldsmModule is LDSMModule, built once.
var ldsmModule = sync.OnceValue(LDSMModule)

// ldsmPlan is a case's form and row offset.
type ldsmPlan struct {
	form LDSMForm
	off  int
}

type ldsmCheck struct{}

func (ldsmCheck) batch() int { return 256 }

func (ldsmCheck) group(p any) string { return p.(ldsmPlan).form.Kernel() }

// plan accepts the cases whose instruction is an .m8n8 .b16 ldmatrix or
// stmatrix as PTX spells it, between shared memory and registers, with the
// fields the hardware cannot see (result shape, cosize, the seed's mode)
// consistent with it: what is left to judge is the instruction and its
// alignment.
func (ldsmCheck) plan(o *GPUOracle, c domain.Case) (any, error) {
	v, ok := c.Value.(ldsm.Value)
	if !ok {
		return nil, errWrongType(ldsm.Name, c.Value)
	}
	mem, regs := v.Src, v.Dst
	if v.Op == ldsm.Store {
		mem, regs = v.Dst, v.Src
	}
	n := int(v.NumMatrices)
	switch {
	case !o.AnyTarget && v.Tgt.Arch.SM != o.dev.SM:
		return nil, Reasons.New("target", "other-device", "the device is sm_%d, the case is for %s", o.dev.SM, v.Tgt.Arch)
	case v.Shape != ldsm.M8N8 || v.Size != ldsm.B16:
		return nil, Reasons.New("shape", "not-m8n8-b16", "the check runs .m8n8 .b16 only, not .%s %s", v.Shape, v.Size)
	case n != 1 && n != 2 && n != 4:
		return nil, Reasons.New("num_matrices", "no-form", "no .x%d form to run", n)
	case mem != ldsm.Shared || regs != ldsm.Register:
		return nil, Reasons.New("src_dst", "not-shared-registers", "the check moves between shared memory and registers, not %s to %s", v.Src, v.Dst)
	case int(v.RegisterCount) != n || int(v.Cosize) != n || v.ResultRank != 1 ||
		int(v.ResultDim0) != ldsm.ElementsPerLane(v.Shape, n) || ldsm.ModeOf(v.Shape, v.Transpose) != v.Mode:
		return nil, Reasons.New("register_count", "not-the-instruction", "its register count, cosize, result shape or mode are not the instruction's; the hardware cannot judge them")
	}
	return ldsmPlan{LDSMForm{v.Op, n, v.Transpose}, LDSMOffset(v.Align)}, nil
}

// build makes one launch of the items' kernel, a block per item.
func (ldsmCheck) build(_ *GPUOracle, items []gpuItem) (Launch, []int, error) {
	f := items[0].plan.(ldsmPlan).form
	offs := make([]byte, 4*len(items))
	for i, it := range items {
		binary.LittleEndian.PutUint32(offs[4*i:], uint32(it.plan.(ldsmPlan).off))
	}
	out := len(items) * ldsmThreads * 4 * f.Num
	if f.Op == ldsm.Store {
		out = len(items) * ldsmTileBytes
	}
	l := Launch{PTX: ldsmModule(), Kernel: f.Kernel(), Grid: [3]uint32{uint32(len(items)), 1, 1},
		Block: [3]uint32{ldsmThreads, 1, 1},
		Buffers: []Buffer{{Size: ldsmTileBytes, Init: LDSMTile()}, {Size: out, ReadBack: true},
			{Size: len(offs), Init: offs}},
		Params: []Param{Ptr(0), Ptr(1), Ptr(2)}}
	return l, nil, nil
}

// read compares each block's registers (or tile) with the prediction.
func (ldsmCheck) read(o *GPUOracle, items []gpuItem, res LaunchResult) []oracles.Verdict {
	out := res.Buffers[1]
	tile := LDSMTile()
	vs := make([]oracles.Verdict, 0, len(items))
	for i, it := range items {
		p := it.plan.(ldsmPlan)
		var got []byte
		var diff string
		if p.form.Op == ldsm.Store {
			got = out[i*ldsmTileBytes : (i+1)*ldsmTileBytes]
			diff = compareBytes(ExpectSTSM(p.form, p.off), got)
		} else {
			n := ldsmThreads * 4 * p.form.Num
			got = out[i*n : (i+1)*n]
			diff = compareRegs(ExpectLDSM(p.form, p.off, tile), got)
		}
		var diffs []string
		if diff != "" {
			diffs = []string{fmt.Sprintf("%s at offset %d: %s", p.form.Instruction(), p.off, diff)}
		}
		vs = append(vs, o.observed(it.c, [][]byte{got}, diffs))
	}
	return vs
}

// compareRegs compares per-lane registers with the bytes a kernel wrote
// (lane-major, little-endian).
func compareRegs(want [ldsmThreads][]uint32, got []byte) string {
	per := len(want[0])
	reg := func(k int) (uint32, uint32) { return binary.LittleEndian.Uint32(got[4*k:]), want[k/per][k%per] }
	diff, first := mismatches(ldsmThreads*per, func(k int) bool { g, w := reg(k); return g != w })
	if diff == 0 {
		return ""
	}
	g, w := reg(first)
	return fmt.Sprintf("%d registers differ; first: lane %d matrix %d holds %#08x, want %#08x", diff, first/per, first%per, g, w)
}

// compareBytes describes how got differs from want; "" when equal.
func compareBytes(want, got []byte) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	diff, first := mismatches(len(want), func(i int) bool { return want[i] != got[i] })
	if diff == 0 {
		return ""
	}
	return fmt.Sprintf("%d bytes differ; first at %#x: got %#02x, want %#02x", diff, first, got[first], want[first])
}
