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

// TensorMapCall is one cuTensorMapEncode* call exactly as the driver gets
// it: enum values passed through unchanged (a reserved value stays
// reserved), arrays of ArgSlots entries, the case's global address as
// given.
type TensorMapCall struct {
	Entry         string
	DataType      uint32
	Rank          uint32
	GlobalAddress uint64
	GlobalDim     [ArgSlots]uint64
	// GlobalStrides holds rank-1 byte strides, of dimensions 1..rank-1.
	GlobalStrides  [ArgSlots]uint64
	BoxDim         [ArgSlots]uint32 // tiled only
	ElementStrides [ArgSlots]uint32
	// LowerCorner and UpperCorner are the im2col pixel-box corners (rank-2
	// entries); for im2col-wide entry 0 is passed by value as the W corner.
	LowerCorner, UpperCorner [ArgSlots]int32
	ChannelsPerPixel         uint32 // im2col kinds
	PixelsPerColumn          uint32 // im2col kinds
	WideMode                 uint32 // im2col-wide
	Interleave               uint32
	Swizzle                  uint32
	L2Promotion              uint32
	OOBFill                  uint32
	// TensorMapResidue is the case's CUtensorMap address modulo
	// AddressPeriod: where in an aligned buffer the driver must write, so a
	// misaligned case is passed a misaligned pointer.
	TensorMapResidue uint64
}

// NewTensorMapCall marshals a tmadesc value into its encode call. The
// domain's enums are numbered as the driver's, so they pass through; the
// arrays carry exactly the entries the value carries.
func NewTensorMapCall(v tmadesc.Value) TensorMapCall {
	c := TensorMapCall{
		DataType: uint32(v.DType), Rank: uint32(v.Rank), GlobalAddress: v.GlobalAddress,
		Interleave: uint32(v.Interleave), Swizzle: uint32(v.Swizzle),
		L2Promotion: uint32(v.L2Promotion), OOBFill: uint32(v.OOBFill),
		TensorMapResidue: v.TensorMap % AddressPeriod,
	}
	for i := range v.Dims() {
		c.GlobalDim[i], c.ElementStrides[i] = v.GlobalDim[i], v.ElementStrides[i]
	}
	for i := range v.StrideCount() {
		c.GlobalStrides[i] = v.GlobalStrides[i]
	}
	switch v.Encoding {
	case tmadesc.Tiled:
		c.Entry = EntryTiled
		for i := range v.Dims() {
			c.BoxDim[i] = v.BoxDim[i]
		}
	case tmadesc.Im2col, tmadesc.Im2colWide:
		c.Entry = EntryIm2col
		if v.Encoding == tmadesc.Im2colWide {
			c.Entry, c.WideMode = EntryIm2colWide, uint32(v.WideMode)
		}
		for i := range v.CornerCount() {
			c.LowerCorner[i], c.UpperCorner[i] = v.PixelBoxLower[i], v.PixelBoxUpper[i]
		}
		c.ChannelsPerPixel, c.PixelsPerColumn = v.ChannelsPerPixel, v.PixelsPerColumn
	}
	return c
}

// String spells the call as C, for reproducers and diagnostics.
func (c TensorMapCall) String() string {
	n := int(min(c.Rank, ArgSlots))
	s := fmt.Sprintf("%s(map%%%d, type=%d, rank=%d, addr=%#x, dim=%v, strides=%v, ", c.Entry,
		AddressPeriod, c.DataType, c.Rank, c.GlobalAddress, c.GlobalDim[:n], c.GlobalStrides[:max(n-1, 0)])
	switch c.Entry {
	case EntryTiled:
		s += fmt.Sprintf("box=%v, ", c.BoxDim[:n])
	case EntryIm2col:
		k := max(min(n-2, 3), 0)
		s += fmt.Sprintf("lower=%v, upper=%v, channels=%d, pixels=%d, ", c.LowerCorner[:k], c.UpperCorner[:k],
			c.ChannelsPerPixel, c.PixelsPerColumn)
	case EntryIm2colWide:
		s += fmt.Sprintf("lowerW=%d, upperW=%d, channels=%d, pixels=%d, mode=%d, ", c.LowerCorner[0],
			c.UpperCorner[0], c.ChannelsPerPixel, c.PixelsPerColumn, c.WideMode)
	}
	return s + fmt.Sprintf("estrides=%v, interleave=%d, swizzle=%d, l2=%d, oob=%d) map at %d mod %d",
		c.ElementStrides[:n], c.Interleave, c.Swizzle, c.L2Promotion, c.OOBFill, c.TensorMapResidue, AddressPeriod)
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
	var r Result
	switch c.Entry {
	case EntryTiled:
		r = d.encodeTiled(tmap, c.DataType, c.Rank, uintptr(c.GlobalAddress), unsafe.Pointer(&c.GlobalDim),
			unsafe.Pointer(&c.GlobalStrides), unsafe.Pointer(&c.BoxDim), unsafe.Pointer(&c.ElementStrides),
			c.Interleave, c.Swizzle, c.L2Promotion, c.OOBFill)
	case EntryIm2col:
		r = d.encodeIm2col(tmap, c.DataType, c.Rank, uintptr(c.GlobalAddress), unsafe.Pointer(&c.GlobalDim),
			unsafe.Pointer(&c.GlobalStrides), unsafe.Pointer(&c.LowerCorner), unsafe.Pointer(&c.UpperCorner),
			c.ChannelsPerPixel, c.PixelsPerColumn, unsafe.Pointer(&c.ElementStrides),
			c.Interleave, c.Swizzle, c.L2Promotion, c.OOBFill)
	case EntryIm2colWide:
		r = d.encodeIm2colWide(tmap, c.DataType, c.Rank, uintptr(c.GlobalAddress), unsafe.Pointer(&c.GlobalDim),
			unsafe.Pointer(&c.GlobalStrides), c.LowerCorner[0], c.UpperCorner[0], c.ChannelsPerPixel,
			c.PixelsPerColumn, unsafe.Pointer(&c.ElementStrides), c.Interleave, c.WideMode, c.Swizzle,
			c.L2Promotion, c.OOBFill)
	}
	runtime.KeepAlive(buf)
	runtime.KeepAlive(&c)
	if err := d.check(c.Entry, r); err != nil {
		return nil, err
	}
	return append([]byte(nil), buf[off:off+TensorMapBytes]...), nil
}
