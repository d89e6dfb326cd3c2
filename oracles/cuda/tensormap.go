package cuda

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// The tensor-map encoders, by their driver entry points.
const (
	EntryTiled      = "cuTensorMapEncodeTiled"
	EntryIm2col     = "cuTensorMapEncodeIm2col"
	EntryIm2colWide = "cuTensorMapEncodeIm2colWide"
)

// TensorMapBytes is sizeof(CUtensorMap); TensorMapAlign is the alignment
// the driver documents for it.
const (
	TensorMapBytes = 128
	TensorMapAlign = 64
)

// ArgSlots is the length of every array argument: the largest rank a
// tmadesc value can name (8), so the driver never reads past an array
// whatever rank it is given. Entries past the value's own count are zero.
const ArgSlots = 8

// AddressPeriod is the period, in bytes, of the addresses a call keeps
// from its case: a relocated address (the CUtensorMap in host memory, a
// global tensor in a device buffer) has the case's address modulo
// AddressPeriod, so every alignment rule (16, 32, 64, 128 bytes) sees what
// the case says.
const AddressPeriod = 256

// TensorMapCall is one cuTensorMapEncode* call: the entry point, the
// descriptor as the domain states it, and where the map is written. The
// domain's enums are numbered as the driver's, so they pass through
// unchanged (a reserved value stays reserved); the arrays are passed as
// ArgSlots entries (args), the value's own entries and zeros past them.
type TensorMapCall struct {
	Entry string
	// Value is the descriptor, normalized: entries past their counts and
	// the fields its encoding does not take are zero. A launch replaces its
	// GlobalAddress with a device buffer's.
	Value tmadesc.Value
	// TensorMapResidue is the case's CUtensorMap address modulo
	// AddressPeriod: where in an aligned buffer the driver must write, so a
	// misaligned case is passed a misaligned pointer.
	TensorMapResidue uint64
}

// tensorMapArgs are the array arguments of a call, ArgSlots entries each,
// so the driver never reads past an array whatever rank it is given.
type tensorMapArgs struct {
	globalDim      [ArgSlots]uint64
	globalStrides  [ArgSlots]uint64 // rank-1 byte strides, of dimensions 1..rank-1
	boxDim         [ArgSlots]uint32 // tiled only
	elementStrides [ArgSlots]uint32
	// lower and upper are the im2col pixel-box corners; for im2col-wide
	// entry 0 is passed by value as the W corner.
	lower, upper [ArgSlots]int32
}

// NewTensorMapCall makes the encode call of a tmadesc value.
func NewTensorMapCall(v tmadesc.Value) TensorMapCall {
	c := TensorMapCall{Entry: EntryTiled, Value: tmadesc.Normalize(v), TensorMapResidue: v.TensorMap % AddressPeriod}
	switch v.Encoding {
	case tmadesc.Im2col:
		c.Entry = EntryIm2col
	case tmadesc.Im2colWide:
		c.Entry = EntryIm2colWide
	}
	return c
}

// args copies the value's arrays into the call's slots.
func (c TensorMapCall) args() tensorMapArgs {
	var a tensorMapArgs
	v := &c.Value
	copy(a.globalDim[:], v.GlobalDim[:])
	copy(a.globalStrides[:], v.GlobalStrides[:])
	copy(a.boxDim[:], v.BoxDim[:])
	copy(a.elementStrides[:], v.ElementStrides[:])
	copy(a.lower[:], v.PixelBoxLower[:])
	copy(a.upper[:], v.PixelBoxUpper[:])
	return a
}

// String spells the call as C, for reproducers and diagnostics.
func (c TensorMapCall) String() string {
	v, a := c.Value, c.args()
	n := int(min(v.Rank, ArgSlots))
	s := fmt.Sprintf("%s(map%%%d, type=%d, rank=%d, addr=%#x, dim=%v, strides=%v, ", c.Entry,
		AddressPeriod, v.DType, v.Rank, v.GlobalAddress, a.globalDim[:n], a.globalStrides[:max(n-1, 0)])
	switch c.Entry {
	case EntryTiled:
		s += fmt.Sprintf("box=%v, ", a.boxDim[:n])
	case EntryIm2col:
		k := max(min(n-2, 3), 0)
		s += fmt.Sprintf("lower=%v, upper=%v, channels=%d, pixels=%d, ", a.lower[:k], a.upper[:k],
			v.ChannelsPerPixel, v.PixelsPerColumn)
	case EntryIm2colWide:
		s += fmt.Sprintf("lowerW=%d, upperW=%d, channels=%d, pixels=%d, mode=%d, ", a.lower[0],
			a.upper[0], v.ChannelsPerPixel, v.PixelsPerColumn, v.WideMode)
	}
	return s + fmt.Sprintf("estrides=%v, interleave=%d, swizzle=%d, l2=%d, oob=%d) map at %d mod %d",
		a.elementStrides[:n], v.Interleave, v.Swizzle, v.L2Promotion, v.OOBFill, c.TensorMapResidue, AddressPeriod)
}

// mapBufferBytes is the host buffer a tensor map is written into: room to
// put the map at any residue modulo AddressPeriod.
const mapBufferBytes = 2*AddressPeriod + TensorMapBytes

// placeAt returns the offset in a buffer starting at address base where an
// object with address residue (mod AddressPeriod) starts: the first such
// address at or after base.
func placeAt(base uintptr, residue uint64) int {
	r := uintptr(residue % AddressPeriod)
	return int((r - base%AddressPeriod + AddressPeriod) % AddressPeriod)
}

// EncodeTensorMap calls the driver's encoder for c and returns the 128-byte
// CUtensorMap it wrote. The map is written at the case's residue: a case
// whose map address is misaligned is given a misaligned pointer, on
// purpose. The error is an *Error for a driver rejection, or a plain error
// when the driver lacks the entry point.
func (d *Driver) EncodeTensorMap(c TensorMapCall) ([]byte, error) {
	if !d.HasEncoder(c.Entry) {
		return nil, fmt.Errorf("driver %d has no %s", d.Version, c.Entry)
	}
	buf := cbytes(mapBufferBytes)
	off := placeAt(uintptr(unsafe.Pointer(&buf[0])), c.TensorMapResidue)
	tmap := unsafe.Pointer(&buf[off])
	v, a := &c.Value, c.args()
	dtype, rank, addr := uint32(v.DType), uint32(v.Rank), uintptr(v.GlobalAddress)
	il, sw, l2, oob := uint32(v.Interleave), uint32(v.Swizzle), uint32(v.L2Promotion), uint32(v.OOBFill)
	var r Result
	switch c.Entry {
	case EntryTiled:
		r = d.encodeTiled(tmap, dtype, rank, addr, unsafe.Pointer(&a.globalDim), unsafe.Pointer(&a.globalStrides),
			unsafe.Pointer(&a.boxDim), unsafe.Pointer(&a.elementStrides), il, sw, l2, oob)
	case EntryIm2col:
		r = d.encodeIm2col(tmap, dtype, rank, addr, unsafe.Pointer(&a.globalDim), unsafe.Pointer(&a.globalStrides),
			unsafe.Pointer(&a.lower), unsafe.Pointer(&a.upper), v.ChannelsPerPixel, v.PixelsPerColumn,
			unsafe.Pointer(&a.elementStrides), il, sw, l2, oob)
	case EntryIm2colWide:
		r = d.encodeIm2colWide(tmap, dtype, rank, addr, unsafe.Pointer(&a.globalDim), unsafe.Pointer(&a.globalStrides),
			a.lower[0], a.upper[0], v.ChannelsPerPixel, v.PixelsPerColumn, unsafe.Pointer(&a.elementStrides),
			il, uint32(v.WideMode), sw, l2, oob)
	}
	runtime.KeepAlive(buf)
	runtime.KeepAlive(&a)
	if err := d.check(c.Entry, r); err != nil {
		return nil, err
	}
	return append([]byte(nil), buf[off:off+TensorMapBytes]...), nil
}
