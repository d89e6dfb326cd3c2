package cuda

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TMATilePTX is the tiled-load kernel (kernels/tma_tile.ptx).
//
//go:embed kernels/tma_tile.ptx
var TMATilePTX string

// Layout of one job record of the tma_tile kernel (tmaJobBytes each).
const (
	tmaJobBytes    = 256
	tmaJobCoords   = 128 // 5 x s32
	tmaJobRank     = 148
	tmaJobBox      = 152
	tmaJobDstOff   = 156
	tmaJobWindow   = 160
	tmaJobStatus   = 164 // written: 1 done, 2 timed out
	tmaJobOut      = 168
	tmaJobTimeout  = 176
	tmaJobElapsed  = 184 // written: ns spent waiting
	tmaThreads     = 128
	tmaWaitNs      = 100_000_000 // the kernel's bounded wait for one load
	tmaMaxCases    = 64
	probeMaxGlobal = 4 << 20  // global bytes one probe may span
	probeMaxLow    = 64 << 20 // the lowest tensor offset a probe may touch
	sharedSlack    = 1024     // dynamic shared memory lost to aligning the base
)

// tmaProbe is one load of a case: the box at coords, the tensor bytes
// [lo, hi) it reads, and the prediction.
type tmaProbe struct {
	coords [tmadesc.MaxDims]int32
	lo, hi uint64
	expect TileExpect
}

// tmaPlan is a case's probes and its encode call.
type tmaPlan struct {
	call   TensorMapCall
	dtype  tmadesc.DType
	dstOff uint32
	probes []tmaProbe
}

type tmaCheck struct{}

func (tmaCheck) batch() int { return tmaMaxCases }

func (tmaCheck) group(any) string { return "" }

// plan predicts the probes of a tiled case the device can run.
func (tmaCheck) plan(o *GPUOracle, c domain.Case) (any, error) {
	v, ok := c.Value.(tmadesc.Value)
	if !ok {
		return nil, errWrongType(tmadesc.Name, c.Value)
	}
	if !o.AnyTarget && v.Tgt.Arch.SM != o.dev.SM {
		return nil, Reasons.New("target", "other-device", "the device is sm_%d, the case is for %s", o.dev.SM, v.Tgt.Arch)
	}
	g, err := geometry(v)
	if err != nil {
		return nil, notPredicted(err)
	}
	p := tmaPlan{call: NewTensorMapCall(v), dtype: v.DType, dstOff: v.SMemAddress % 1024}
	maxWindow := int64(o.dev.MaxSharedBytes - sharedSlack - 64)
	if w := windowBytes(int64(p.dstOff), g.boxBytes()); w > maxWindow {
		return nil, Reasons.New("box", "beyond-check-memory", "its box takes %d bytes of shared memory; the check has %d", g.boxBytes(), maxWindow)
	}
	elem := func(off uint64) []byte { return ElementPattern(v.DType, off/uint64(g.elemBytes)) }
	for _, coords := range probeCoords(g) {
		lo, hi, ok := g.span(coords)
		if !ok || hi-lo > probeMaxGlobal || lo > probeMaxLow {
			continue
		}
		want, err := ExpectTile(v, coords, p.dstOff, elem)
		if err != nil {
			return nil, notPredicted(err)
		}
		p.probes = append(p.probes, tmaProbe{coords: coords, lo: lo, hi: hi, expect: want})
	}
	if len(p.probes) == 0 {
		return nil, Reasons.New("box", "beyond-check-memory", "every load of its box spans more global memory than the check allocates")
	}
	return p, nil
}

// probeCoords are the boxes a case is loaded at: the origin, and half the
// box out of bounds below and above in every dimension (when the
// coordinates fit the instruction's s32 operands).
func probeCoords(g tileGeom) [][tmadesc.MaxDims]int32 {
	var low, high [tmadesc.MaxDims]int64
	for i := range g.rank {
		half := g.n[i] * g.step[i] / 2
		low[i], high[i] = -half, g.dim[i]-half
	}
	out := [][tmadesc.MaxDims]int32{{}}
	for _, c := range [][tmadesc.MaxDims]int64{low, high} {
		var s [tmadesc.MaxDims]int32
		fits := true
		for i, x := range c {
			fits = fits && x >= math.MinInt32 && x <= math.MaxInt32
			s[i] = int32(x)
		}
		if fits && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// span is the tensor byte range [lo, hi) the in-bounds elements of the box
// at coords occupy; ok is false when it overflows 64 bits. A box entirely
// out of bounds reads nothing: lo == hi == 0.
func (g tileGeom) span(coords [tmadesc.MaxDims]int32) (lo, hi uint64, ok bool) {
	var last uint64
	for i := range g.rank {
		c := int64(coords[i])
		first := int64(0) // the first box index in bounds
		if c < 0 {
			first = (-c + g.step[i] - 1) / g.step[i]
		}
		end := min(g.n[i]-1, (g.dim[i]-1-c)/g.step[i]) // the last one
		if c > g.dim[i]-1 || first > end {
			return 0, 0, true
		}
		xlo, xhi := uint64(c+first*g.step[i]), uint64(c+end*g.step[i])
		for _, t := range []struct {
			x   uint64
			acc *uint64
		}{{xlo, &lo}, {xhi, &last}} {
			h, m := bits.Mul64(t.x, g.stride[i])
			s, carry := bits.Add64(*t.acc, m, 0)
			if h != 0 || carry != 0 {
				return 0, 0, false
			}
			*t.acc = s
		}
	}
	hi, carry := bits.Add64(last, uint64(g.elemBytes), 0)
	return lo, hi, carry == 0
}

// build lays the items' probes out as jobs of one tma_tile launch: buffer
// 0 the jobs (tensor maps encoded into them), 1 the global regions the
// probes read, 2 the windows they write.
func (tmaCheck) build(o *GPUOracle, items []gpuItem) (Launch, []int, error) {
	var jobs, global []byte
	var maps []MapPatch
	var ptrs []PointerPatch
	var owners []int
	window, maxWindow := 0, 0
	for i, it := range items {
		p := it.plan.(tmaPlan)
		for _, pr := range p.probes {
			j := len(jobs)
			jobs = append(jobs, make([]byte, tmaJobBytes)...)
			// the region starts where the tensor's origin keeps the case's residue
			start := uint64(len(global)+AddressPeriod-1)/AddressPeriod*AddressPeriod + pr.lo%AddressPeriod
			residue := p.call.Value.GlobalAddress % AddressPeriod
			global = append(global, make([]byte, int(start+residue+pr.hi-pr.lo)-len(global))...)
			fillRegion(global[start+residue:], p.dtype, pr.lo, pr.hi)
			maps = append(maps, MapPatch{Buffer: 0, Offset: j, Call: p.call, Global: 1,
				GlobalOffset: start + residue - pr.lo})
			owners = append(owners, i)
			w := len(pr.expect.Bytes)
			writeJob(jobs[j:], pr, p, w)
			ptrs = append(ptrs, PointerPatch{Buffer: 0, Offset: j + tmaJobOut, Target: 2, Add: uint64(window)})
			window += w
			maxWindow = max(maxWindow, w)
		}
	}
	l := Launch{PTX: TMATilePTX, Kernel: "tma_tile", Grid: [3]uint32{uint32(len(jobs) / tmaJobBytes), 1, 1},
		Block: [3]uint32{tmaThreads, 1, 1}, SharedBytes: uint32(maxWindow + sharedSlack),
		Buffers: []Buffer{{Size: len(jobs), Init: jobs, ReadBack: true}, {Size: max(len(global), 16), Init: global},
			{Size: window, ReadBack: true}},
		Maps: maps, Pointers: ptrs, Params: []Param{Ptr(0)}}
	return l, owners, nil
}

// writeJob fills one job record (the tensor map and output pointer are
// patched in at launch).
func writeJob(job []byte, pr tmaProbe, p tmaPlan, window int) {
	le := binary.LittleEndian
	for i, c := range pr.coords {
		le.PutUint32(job[tmaJobCoords+4*i:], uint32(c))
	}
	le.PutUint32(job[tmaJobRank:], uint32(p.call.Value.Rank))
	le.PutUint32(job[tmaJobBox:], uint32(pr.expect.BoxBytes))
	le.PutUint32(job[tmaJobDstOff:], p.dstOff)
	le.PutUint32(job[tmaJobWindow:], uint32(window))
	le.PutUint64(job[tmaJobTimeout:], tmaWaitNs)
}

// fillRegion writes the element pattern of the tensor bytes [lo, hi) into
// region (which starts at tensor offset lo). Element offsets are multiples
// of the element size: strides are multiples of 16.
func fillRegion(region []byte, d tmadesc.DType, lo, hi uint64) {
	size := uint64(d.SMemBits() / 8)
	for off := lo; off < hi; off += size {
		copy(region[off-lo:], ElementPattern(d, off/size))
	}
}

// read compares each probe's window with its prediction.
func (tmaCheck) read(o *GPUOracle, items []gpuItem, res LaunchResult) []oracles.Verdict {
	jobs, windows := res.Buffers[0], res.Buffers[2]
	out := make([]oracles.Verdict, 0, len(items))
	j, w := 0, 0
	for _, it := range items {
		p := it.plan.(tmaPlan)
		var data [][]byte
		var diffs []string
		timedOut := false
		for _, pr := range p.probes {
			n := len(pr.expect.Bytes)
			got := windows[w : w+n]
			data = append(data, got)
			switch binary.LittleEndian.Uint32(jobs[j+tmaJobStatus:]) {
			case 1:
				if d := pr.expect.Compare(p.dtype, got); d != "" {
					diffs = append(diffs, fmt.Sprintf("box at %v: %s", pr.coords[:p.call.Value.Rank], d))
				}
			case 2:
				timedOut = true
			default:
				diffs = append(diffs, fmt.Sprintf("box at %v: the block did not report", pr.coords[:p.call.Value.Rank]))
			}
			j, w = j+tmaJobBytes, w+n
		}
		if timedOut {
			out = append(out, o.verdict(it.c, oracles.Timeout,
				fmt.Sprintf("a load did not complete its mbarrier within %d ms", tmaWaitNs/1_000_000), ""))
			continue
		}
		out = append(out, o.observed(it.c, data, diffs))
	}
	return out
}
