package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/swizzle"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// This file predicts what a tiled TMA load (cp.async.bulk.tensor .tile)
// leaves in shared memory, from the descriptor alone. It is our reading of
// the CUDA driver documentation and the programming guide, written so the
// hardware can contradict it:
//
//   - The box holds n[i] = ceil(boxDim[i] / elementStrides[i]) elements
//     along dimension i (n[0] = boxDim[0]: without interleave the element
//     stride of dimension 0 is ignored), element j[i] at coordinate
//     c[i] + j[i]*elementStrides[i], laid out densely, dimension 0 fastest.
//   - An element outside [0, globalDim[i]) in any dimension is filled:
//     zero, or with OOB fill NAN_REQUEST_ZERO_FMA a NaN (its bits are not
//     documented, so any NaN of the type is accepted).
//   - Logical byte L of the box lands at shared address swizzle(dst + L):
//     the swizzle permutes 16-byte chunks by the absolute address bits,
//     XOR-ing the chunk index with the 128-byte row index (SwizzleAddr), so
//     a destination off the pattern's repeat boundary starts mid-pattern.
//
// Interleaved layouts, the packed 16U4/16U6 types and the im2col modes are
// not predicted (ErrNotPredicted).

// ErrNotPredicted marks a case whose outcome legalfuzz does not predict;
// the gpu oracle calls it unsupported.
var ErrNotPredicted = errors.New("no prediction")

// SwizzleAddr applies a CUtensorMapSwizzle pattern to a shared-memory byte
// address. Each mode is a CuTe Swizzle<B,M,S> (tensorMapSwizzle), applied
// by the swizzle domain's model (fuzz/swizzle's Apply, which spec checks):
// the 16-byte chunk index within a 128-byte row (bits 4-6) XOR-ed with the
// row index (bits 7-9), all three bits for 128B, the low two for 64B, the
// low one for 32B; the 128B_ATOM modes move 32- or 64-byte atoms instead.
// FLIP_8B also swaps the 8-byte halves of each 16-byte chunk in odd rows
// (our reading of the driver documentation; sm_100 only). NONE and unknown
// values are the identity.
func SwizzleAddr(s tmadesc.Swizzle, a uint64) uint64 {
	cute, ok := tensorMapSwizzle[s]
	if !ok {
		return a
	}
	// The pattern reads and writes only bits below 2^(B+M+S) <= 2^10.
	out := a&^math.MaxUint32 | uint64(cute.Apply(uint32(a)))
	if s == tmadesc.Swizzle128BAtom32BFlip8B {
		out ^= (a >> 4) & 0x8
	}
	return out
}

// tensorMapSwizzle is the CuTe swizzle of each CUtensorMapSwizzle mode
// that permutes: the swizzle domain's named modes, and the 64-byte atoms'
// <1,6,1>, which it does not name.
var tensorMapSwizzle = map[tmadesc.Swizzle]swizzle.Value{
	tmadesc.Swizzle32B:               cuteOf(swizzle.B32),
	tmadesc.Swizzle64B:               cuteOf(swizzle.B64),
	tmadesc.Swizzle128B:              cuteOf(swizzle.B128),
	tmadesc.Swizzle128BAtom32B:       cuteOf(swizzle.B128Base32B),
	tmadesc.Swizzle128BAtom32BFlip8B: cuteOf(swizzle.B128Base32B),
	tmadesc.Swizzle128BAtom64B:       {B: 1, M: 6, S: 1},
}

// cuteOf is a named mode's Swizzle<B,M,S>.
func cuteOf(m swizzle.Mode) swizzle.Value {
	b, mm, s := m.Triple()
	return swizzle.Value{Mode: m, B: b, M: mm, S: s}
}

// tileGeom is a tiled descriptor's box as a load walks it.
type tileGeom struct {
	rank, elemBytes int
	// n is the elements per dimension in shared memory; step the
	// coordinate step between them.
	n, step [tmadesc.MaxDims]int64
	dim     [tmadesc.MaxDims]int64
	// stride is the byte stride of each dimension (stride[0] = elemBytes).
	stride  [tmadesc.MaxDims]uint64
	dtype   tmadesc.DType
	swizzle tmadesc.Swizzle
	nanFill bool
}

// geometry reads the box of a tiled value, or says why the load is not
// predicted. It expects a value the driver encodes (rank 1..5, boxes and
// strides in range); anything else is not predicted either.
func geometry(v tmadesc.Value) (tileGeom, error) {
	g := tileGeom{rank: int(v.Rank), dtype: v.DType, swizzle: v.Swizzle, nanFill: v.OOBFill == tmadesc.OOBNaN}
	switch {
	case v.Encoding != tmadesc.Tiled:
		return g, fmt.Errorf("%w for %s loads", ErrNotPredicted, v.Encoding)
	case v.Interleave != tmadesc.InterleaveNone:
		return g, fmt.Errorf("%w for interleaved layouts", ErrNotPredicted)
	case v.DType >= tmadesc.U4Align8B:
		return g, fmt.Errorf("%w for the packed type %s", ErrNotPredicted, v.DType)
	case v.Rank < 1 || v.Rank > tmadesc.MaxDims:
		return g, fmt.Errorf("%w for rank %d", ErrNotPredicted, v.Rank)
	}
	g.elemBytes = int(v.DType.SMemBits() / 8)
	for i := range g.rank {
		box, es := int64(v.BoxDim[i]), int64(v.ElementStrides[i])
		if i == 0 {
			es = 1
		}
		if box < 1 || es < 1 || v.GlobalDim[i] < 1 || v.GlobalDim[i] > 1<<32 {
			return g, fmt.Errorf("%w for box %d, element stride %d, extent %d in dimension %d",
				ErrNotPredicted, box, es, v.GlobalDim[i], i)
		}
		g.n[i], g.step[i], g.dim[i] = (box+es-1)/es, es, int64(v.GlobalDim[i])
		if span := int64(v.Swizzle.Span()); i == 0 && span > 0 && g.n[0]*int64(g.elemBytes) < span {
			// On an H200 (docs/gpu-runs.md) such rows were not packed:
			// row 1 was not where the dense layout puts it.
			return g, fmt.Errorf("%w for a box row of %d bytes under the %s swizzle, narrower than its span",
				ErrNotPredicted, g.n[0]*int64(g.elemBytes), v.Swizzle)
		}
		g.stride[i] = uint64(g.elemBytes)
		if i > 0 {
			g.stride[i] = v.GlobalStrides[i-1]
		}
	}
	return g, nil
}

// boxBytes is the size of the box in shared memory: the mbarrier's
// expected transaction count.
func (g tileGeom) boxBytes() int64 {
	b := int64(g.elemBytes)
	for i := range g.rank {
		b *= g.n[i]
	}
	return b
}

// Span is a byte range [Off, Off+Len).
type Span struct{ Off, Len int }

// TileExpect is what the window of shared memory the kernel copies back
// must hold after one load: Bytes, except that each NaN span must hold a
// NaN of the element type (bits unknown).
type TileExpect struct {
	Bytes []byte
	NaN   []Span
	// BoxBytes is the transaction count of the load.
	BoxBytes int
}

// Sentinel fills shared memory before a load, so bytes the load does not
// write are told from bytes it writes.
const Sentinel = 0xA5

// windowBytes is the span of shared memory a load's check copies back,
// from the 1024-byte-aligned base: up to the end of the 128-byte row
// holding the box's last byte, and one more row to catch stray writes.
func windowBytes(dstOff, boxBytes int64) int64 {
	return (dstOff+boxBytes+127)/128*128 + 128
}

// ExpectTile predicts the window after loading the box of v at coords into
// shared memory at base+dstOff (base 1024-byte aligned), with elem giving
// each in-bounds element's bytes by its byte offset from the tensor's
// origin.
func ExpectTile(v tmadesc.Value, coords [tmadesc.MaxDims]int32, dstOff uint32, elem func(off uint64) []byte) (TileExpect, error) {
	g, err := geometry(v)
	if err != nil {
		return TileExpect{}, err
	}
	box := g.boxBytes()
	win := windowBytes(int64(dstOff), box)
	want := TileExpect{Bytes: make([]byte, win), BoxBytes: int(box)}
	for i := range want.Bytes {
		want.Bytes[i] = Sentinel
	}
	var j [tmadesc.MaxDims]int64
	for L := int64(0); L < box; L += int64(g.elemBytes) {
		off, in := uint64(0), true
		for i := range g.rank {
			x := int64(coords[i]) + j[i]*g.step[i]
			if x < 0 || x >= g.dim[i] {
				in = false
				break
			}
			off += uint64(x) * g.stride[i]
		}
		var bytes []byte
		if in {
			bytes = elem(off)
		} else {
			bytes = make([]byte, g.elemBytes)
		}
		for b := range g.elemBytes {
			want.Bytes[SwizzleAddr(g.swizzle, uint64(int64(dstOff)+L+int64(b)))] = bytes[b]
		}
		if !in && g.nanFill {
			// elements are at most 8 bytes and chunks 16: a swizzle moves an element whole
			want.NaN = append(want.NaN, Span{int(SwizzleAddr(g.swizzle, uint64(int64(dstOff)+L))), g.elemBytes})
		}
		for i := range g.rank { // next box element, dimension 0 fastest
			if j[i]++; j[i] < g.n[i] {
				break
			}
			j[i] = 0
		}
	}
	return want, nil
}

// Compare checks an observed window against the prediction and describes
// the first difference; "" means it matches.
func (e TileExpect) Compare(dtype tmadesc.DType, got []byte) string {
	if len(got) != len(e.Bytes) {
		return fmt.Sprintf("window of %d bytes, want %d", len(got), len(e.Bytes))
	}
	nan := make([]bool, len(got))
	for _, s := range e.NaN {
		if !isNaN(dtype, got[s.Off:s.Off+s.Len]) {
			return fmt.Sprintf("element at byte %#x is % x, want a NaN out-of-bounds fill", s.Off, got[s.Off:s.Off+s.Len])
		}
		for i := s.Off; i < s.Off+s.Len; i++ {
			nan[i] = true
		}
	}
	diff, first := mismatches(len(got), func(i int) bool { return !nan[i] && got[i] != e.Bytes[i] })
	if diff == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d bytes differ; first at byte %#x: got %#02x, want %#02x", diff, len(got),
		first, got[first], e.Bytes[first])
}

// mismatches counts the positions below n where differ holds and returns
// the first (-1 when none): the one compare-and-report of the GPU checks,
// which say how many elements differ and show the first.
func mismatches(n int, differ func(i int) bool) (count, first int) {
	first = -1
	for i := range n {
		if differ(i) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return count, first
}

// isNaN reports whether b (little-endian) is a NaN of the float type d.
func isNaN(d tmadesc.DType, b []byte) bool {
	switch len(b) {
	case 2:
		x := binary.LittleEndian.Uint16(b)
		if d == tmadesc.BFloat16 {
			return x&0x7F80 == 0x7F80 && x&0x7F != 0
		}
		return x&0x7C00 == 0x7C00 && x&0x3FF != 0
	case 4:
		return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case 8:
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return false
}

// mix64 is a bijective 64-bit mixer (the splitmix64 finalizer).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	return x ^ x>>31
}

// ElementPattern is the value the checks store at element index idx of a
// tensor of type d: distinct-looking bits, and for float types always a
// normal number in ±[1, 2) (TF32 with its low 13 mantissa bits clear), so
// no conversion, flush or NaN canonicalization could change it.
func ElementPattern(d tmadesc.DType, idx uint64) []byte {
	h := mix64(idx + 1)
	sign := h >> 63
	b := make([]byte, d.SMemBits()/8)
	switch {
	case d == tmadesc.Float16:
		binary.LittleEndian.PutUint16(b, uint16(sign<<15|0x3C00|h&0x3FF))
	case d == tmadesc.BFloat16:
		binary.LittleEndian.PutUint16(b, uint16(sign<<15|0x3F80|h&0x7F))
	case d == tmadesc.Float32 || d == tmadesc.Float32FTZ:
		binary.LittleEndian.PutUint32(b, uint32(sign<<31|0x3F800000|h&0x7FFFFF))
	case d == tmadesc.TFloat32 || d == tmadesc.TFloat32FTZ:
		binary.LittleEndian.PutUint32(b, uint32(sign<<31|0x3F800000|h&0x7FE000))
	case d == tmadesc.Float64:
		binary.LittleEndian.PutUint64(b, sign<<63|0x3FF0000000000000|h&0xFFFFFFFFFFFFF)
	default:
		for i := range b {
			b[i] = byte(h >> (8 * i))
		}
	}
	return b
}
