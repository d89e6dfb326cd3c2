package cuda

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// rngSeed returns the PRNG seed: CUDA_TEST_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	return domaintest.Seed(t, "CUDA_TEST_SEED", 0xc0da)
}

// iterations is how many random values the randomized tests draw.
func iterations() int { return domaintest.Iterations(5000, 500) }

func tmaSeeds(t *testing.T) []tmadesc.Value {
	t.Helper()
	var out []tmadesc.Value
	for _, v := range tmadesc.Seeds() {
		out = append(out, v.(tmadesc.Value))
	}
	return out
}

// checkCall checks the invariants every marshalled call keeps: enums and
// counts pass through, and each array holds exactly the value's entries.
func checkCall(t *testing.T, v tmadesc.Value, c TensorMapCall) {
	t.Helper()
	want := map[tmadesc.Encoding]string{tmadesc.Tiled: EntryTiled, tmadesc.Im2col: EntryIm2col, tmadesc.Im2colWide: EntryIm2colWide}
	if c.Entry != want[v.Encoding] {
		t.Fatalf("%v: entry %s, want %s", v, c.Entry, want[v.Encoding])
	}
	if c.DataType != uint32(v.DType) || c.Rank != uint32(v.Rank) || c.Interleave != uint32(v.Interleave) ||
		c.Swizzle != uint32(v.Swizzle) || c.L2Promotion != uint32(v.L2Promotion) || c.OOBFill != uint32(v.OOBFill) {
		t.Fatalf("%v: enums changed: %+v", v, c)
	}
	if c.GlobalAddress != v.GlobalAddress || c.TensorMapResidue != v.TensorMap%AddressPeriod {
		t.Fatalf("%v: addresses %#x, residue %#x", v, c.GlobalAddress, c.TensorMapResidue)
	}
	for i := range ArgSlots {
		in := i < v.Dims()
		if got, want := c.GlobalDim[i], pick(in, v.GlobalDim[:], i); got != want {
			t.Fatalf("%v: globalDim[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := c.ElementStrides[i], pick(in, v.ElementStrides[:], i); got != want {
			t.Fatalf("%v: elementStrides[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := c.GlobalStrides[i], pick(i < v.StrideCount(), v.GlobalStrides[:], i); got != want {
			t.Fatalf("%v: globalStrides[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := c.BoxDim[i], pick(in && v.Encoding == tmadesc.Tiled, v.BoxDim[:], i); got != want {
			t.Fatalf("%v: boxDim[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := c.LowerCorner[i], pick(i < v.CornerCount(), v.PixelBoxLower[:], i); got != want {
			t.Fatalf("%v: lower corner[%d] = %d, want %d", v, i, got, want)
		}
	}
	if v.Encoding == tmadesc.Tiled && (c.ChannelsPerPixel != 0 || c.PixelsPerColumn != 0) {
		t.Fatalf("%v: a tiled call carries im2col fields", v)
	}
	if v.Encoding == tmadesc.Im2colWide && c.WideMode != uint32(v.WideMode) {
		t.Fatalf("%v: wide mode %d", v, c.WideMode)
	}
}

// pick is a[i] when in, else the zero value.
func pick[T any](in bool, a []T, i int) T {
	var zero T
	if !in || i >= len(a) {
		return zero
	}
	return a[i]
}

func TestTensorMapCallOfSeeds(t *testing.T) {
	for _, v := range tmaSeeds(t) {
		checkCall(t, v, NewTensorMapCall(v))
	}
}

func TestTensorMapCallOfRandomValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(rngSeed(t), 1))
	for range iterations() {
		dv, err := tmadesc.Decode(domaintest.Input(rng, rng.IntN(200)))
		if err != nil {
			t.Fatal(err)
		}
		v := dv.(tmadesc.Value)
		c := NewTensorMapCall(v)
		checkCall(t, v, c)
		if s := c.String(); !strings.HasPrefix(s, c.Entry+"(") {
			t.Fatalf("String() = %q", s)
		}
	}
}

func TestTensorMapCallOfBaseTiled(t *testing.T) {
	c := NewTensorMapCall(tmadesc.BaseTiled)
	want := TensorMapCall{Entry: EntryTiled, DataType: 6, Rank: 2, GlobalAddress: 0x100000,
		GlobalDim: [ArgSlots]uint64{256, 256}, GlobalStrides: [ArgSlots]uint64{512},
		BoxDim: [ArgSlots]uint32{64, 64}, ElementStrides: [ArgSlots]uint32{1, 1}, Swizzle: 3}
	if c != want {
		t.Fatalf("BaseTiled marshals to\n%+v\nwant\n%+v", c, want)
	}
}

// The driver's enums (cuda.h) are the domain's: a reserved value reaches
// the driver as the next number past the enum, for it to refuse.
func TestReservedEnumsPassThrough(t *testing.T) {
	v := tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) {
		v.DType, v.Interleave, v.Swizzle, v.L2Promotion = tmadesc.DTypeReserved, tmadesc.InterleaveReserved,
			tmadesc.SwizzleReserved, tmadesc.L2Reserved
	})
	c := NewTensorMapCall(v)
	if c.DataType != 16 || c.Interleave != 3 || c.Swizzle != 7 || c.L2Promotion != 4 {
		t.Fatalf("reserved values became %d %d %d %d, want 16 3 7 4", c.DataType, c.Interleave, c.Swizzle, c.L2Promotion)
	}
	for s, want := range map[tmadesc.Swizzle]uint32{tmadesc.Swizzle128BAtom32B: 4, tmadesc.Swizzle128BAtom32BFlip8B: 5,
		tmadesc.Swizzle128BAtom64B: 6} {
		if got := NewTensorMapCall(tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.Swizzle = s })).Swizzle; got != want {
			t.Errorf("swizzle %s = %d, want CU_TENSOR_MAP_SWIZZLE value %d", s, got, want)
		}
	}
	if got := NewTensorMapCall(tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.DType = tmadesc.U6Align16B })).DataType; got != 15 {
		t.Errorf("16U6_ALIGN16B = %d, want 15", got)
	}
}

// A rank above five reaches the driver as is, with five entries and zeros
// beyond, so the driver never reads past an array.
func TestRankAboveFive(t *testing.T) {
	c := NewTensorMapCall(tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.Rank = 7 }))
	if c.Rank != 7 {
		t.Fatalf("rank %d", c.Rank)
	}
	for i := tmadesc.MaxDims; i < ArgSlots; i++ {
		if c.GlobalDim[i] != 0 || c.BoxDim[i] != 0 || c.ElementStrides[i] != 0 {
			t.Fatalf("slot %d not zero: %+v", i, c)
		}
	}
}

func TestIm2colCorners(t *testing.T) {
	c := NewTensorMapCall(tmadesc.BaseIm2col)
	if c.Entry != EntryIm2col || c.LowerCorner != [ArgSlots]int32{-1, -1} || c.UpperCorner != [ArgSlots]int32{-1, -1} ||
		c.ChannelsPerPixel != 64 || c.PixelsPerColumn != 128 || c.BoxDim != [ArgSlots]uint32{} {
		t.Fatalf("BaseIm2col marshals to %+v", c)
	}
	w := NewTensorMapCall(tmadesc.With(tmadesc.BaseWide, func(v *tmadesc.Value) { v.WideMode = tmadesc.WideW128 }))
	if w.Entry != EntryIm2colWide || w.LowerCorner[0] != -1 || w.UpperCorner[0] != -1 || w.WideMode != 1 {
		t.Fatalf("BaseWide (W128) marshals to %+v", w)
	}
}

// placeAt puts the map at the case's residue modulo AddressPeriod, inside
// the buffer: a case with a misaligned map gets a misaligned pointer.
func TestPlaceAt(t *testing.T) {
	for _, base := range []uintptr{0x1000, 0x1001, 0x10f0, 0xc000123456, 0xc0000000ff} {
		for _, residue := range []uint64{0, 1, 0x20, 0x40, 0x80, 0xff, 0x100, 0x1020} {
			off := placeAt(base, residue)
			if off < 0 || off >= AddressPeriod || off+TensorMapBytes > mapBufferBytes {
				t.Fatalf("base %#x residue %#x: offset %d outside the buffer", base, residue, off)
			}
			if got := uint64(base+uintptr(off)) % AddressPeriod; got != residue%AddressPeriod {
				t.Fatalf("base %#x residue %#x: map at %#x (residue %#x)", base, residue, base+uintptr(off), got)
			}
		}
	}
	seed := tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.TensorMap = 0x1020 })
	r := NewTensorMapCall(seed).TensorMapResidue
	if addr := uint64(0x7000) + uint64(placeAt(0x7000, r)); addr%TensorMapAlign != 0x20 {
		t.Fatalf("the misaligned-map seed is placed at %#x, %d mod 64, want 32", addr, addr%TensorMapAlign)
	}
}

func TestKernelParams(t *testing.T) {
	arena, ptrs := kernelParams([]Param{Ptr(1), U32(7), {Buffer: 0, Add: 16, Size: 8}}, []uint64{0x1000, 0x2000})
	le := func(b []byte) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	if le(arena[0:]) != 0x2000 || le(arena[8:])&0xffffffff != 7 || le(arena[16:]) != 0x1010 {
		t.Fatalf("arena % x", arena[:24])
	}
	if len(ptrs) < 24 || le(ptrs[8:])-le(ptrs[0:]) != 8 || le(ptrs[16:])-le(ptrs[8:]) != 8 {
		t.Fatalf("pointers do not step through the arena: % x", ptrs[:24])
	}
}
