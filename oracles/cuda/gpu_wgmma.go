package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// wgmmaModule is WGMMAPTX, built once.
var wgmmaModule = sync.OnceValue(WGMMAPTX)

type wgmmaCheck struct{}

func (wgmmaCheck) batch() int { return 64 }

func (wgmmaCheck) group(any) string { return "" }

// plan accepts wgmma descriptors on an sm_90 device (wgmma is sm_90a only).
// A descriptor that is not uniform across the warpgroup runs too: the
// hardware's answer is recorded, though nothing predicts it.
func (wgmmaCheck) plan(o *GPUOracle, c domain.Case) (any, error) {
	v, ok := c.Value.(matdesc.Value)
	if !ok {
		return nil, errWrongType(matdesc.Name, c.Value)
	}
	switch {
	case v.Format != matdesc.WGMMA:
		return nil, Reasons.New("format", "tcgen05", "tcgen05 descriptors need a tcgen05.mma check, which is not built yet")
	case o.dev.SM != 90:
		return nil, Reasons.New("target", "no-wgmma-on-device", "wgmma runs on sm_90a devices; this one is sm_%d", o.dev.SM)
	case !o.AnyTarget && v.Tgt.Arch.SM != o.dev.SM:
		return nil, Reasons.New("target", "other-device", "the device is sm_%d, the case is for %s", o.dev.SM, v.Tgt.Arch)
	}
	return v, nil
}

// build makes one launch with a block (a warpgroup) per descriptor, each
// filling as much dynamic shared memory as the device allows.
func (wgmmaCheck) build(o *GPUOracle, items []gpuItem) (Launch, []int, error) {
	jobs := make([]byte, wgmmaJobBytes*len(items))
	for i, it := range items {
		v := it.plan.(matdesc.Value)
		binary.LittleEndian.PutUint64(jobs[wgmmaJobBytes*i:], v.Raw())
		if v.Uniform {
			binary.LittleEndian.PutUint32(jobs[wgmmaJobBytes*i+8:], 1)
		}
	}
	shared := uint32(o.dev.MaxSharedBytes - sharedSlack)
	l := Launch{PTX: wgmmaModule(), Kernel: "wgmma_desc", Grid: [3]uint32{uint32(len(items)), 1, 1},
		Block: [3]uint32{wgmmaThreads, 1, 1}, SharedBytes: shared,
		Buffers: []Buffer{{Size: len(jobs), Init: jobs}, {Size: wgmmaOutBytes * len(items), ReadBack: true}},
		Params:  []Param{Ptr(0), Ptr(1), U32(shared)}}
	return l, nil, nil
}

// read compares each warpgroup's accumulators with the product predicted
// from the shared memory range the block reported filling.
func (wgmmaCheck) read(o *GPUOracle, items []gpuItem, res LaunchResult) []oracles.Verdict {
	out := res.Buffers[1]
	vs := make([]oracles.Verdict, 0, len(items))
	for i, it := range items {
		v := it.plan.(matdesc.Value)
		block := out[i*wgmmaOutBytes : (i+1)*wgmmaOutBytes]
		frags := block[wgmmaFragOff : wgmmaFragOff+wgmmaThreads*16]
		lo, hi := binary.LittleEndian.Uint32(block), binary.LittleEndian.Uint32(block[4:])
		want, err := WGMMAFragments(v, lo, hi)
		switch {
		case !v.Uniform:
			vs = append(vs, o.unpredicted(it.c, [][]byte{frags},
				Reasons.New("uniform", "differs-across-warpgroup", "no prediction for a descriptor that differs across the warpgroup")))
		case errors.Is(err, ErrNotPredicted):
			vs = append(vs, o.unpredicted(it.c, [][]byte{frags}, Reasons.New("value", "not-predicted", "%s", err)))
		default:
			var diffs []string
			if d := compareFrags(want, frags); d != "" {
				diffs = []string{d}
			}
			vs = append(vs, o.observed(it.c, [][]byte{frags}, diffs))
		}
	}
	return vs
}

// compareFrags compares predicted accumulators with the f32 a kernel wrote.
func compareFrags(want [wgmmaThreads][4]float32, got []byte) string {
	acc := func(k int) (float32, float32) {
		return math.Float32frombits(binary.LittleEndian.Uint32(got[4*k:])), want[k/4][k%4]
	}
	diff, first := mismatches(wgmmaThreads*4, func(k int) bool { g, w := acc(k); return g != w })
	if diff == 0 {
		return ""
	}
	g, w := acc(first)
	return fmt.Sprintf("%d of %d accumulators differ; first: thread %d register %d holds %g, want %g", diff, wgmmaThreads*4, first/4, first%4, g, w)
}
