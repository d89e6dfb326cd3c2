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

// checkCall checks the invariants every call keeps: the value passes
// through, and each array argument holds exactly the value's entries.
func checkCall(t *testing.T, v tmadesc.Value, c TensorMapCall) {
	t.Helper()
	want := map[tmadesc.Encoding]string{tmadesc.Tiled: EntryTiled, tmadesc.Im2col: EntryIm2col, tmadesc.Im2colWide: EntryIm2colWide}
	if c.Entry != want[v.Encoding] {
		t.Fatalf("%v: entry %s, want %s", v, c.Entry, want[v.Encoding])
	}
	if c.Value != tmadesc.Normalize(v) || c.TensorMapResidue != v.TensorMap%AddressPeriod {
		t.Fatalf("%v: the call carries %+v, residue %#x", v, c.Value, c.TensorMapResidue)
	}
	a := c.args()
	for i := range ArgSlots {
		in := i < v.Dims()
		if got, want := a.globalDim[i], pick(in, v.GlobalDim[:], i); got != want {
			t.Fatalf("%v: globalDim[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := a.elementStrides[i], pick(in, v.ElementStrides[:], i); got != want {
			t.Fatalf("%v: elementStrides[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := a.globalStrides[i], pick(i < v.StrideCount(), v.GlobalStrides[:], i); got != want {
			t.Fatalf("%v: globalStrides[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := a.boxDim[i], pick(in && v.Encoding == tmadesc.Tiled, v.BoxDim[:], i); got != want {
			t.Fatalf("%v: boxDim[%d] = %d, want %d", v, i, got, want)
		}
		if got, want := a.lower[i], pick(i < v.CornerCount(), v.PixelBoxLower[:], i); got != want {
			t.Fatalf("%v: lower corner[%d] = %d, want %d", v, i, got, want)
		}
	}
	if v.Encoding == tmadesc.Tiled && (c.Value.ChannelsPerPixel != 0 || c.Value.PixelsPerColumn != 0) {
		t.Fatalf("%v: a tiled call carries im2col fields", v)
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
	want := tensorMapArgs{globalDim: [ArgSlots]uint64{256, 256}, globalStrides: [ArgSlots]uint64{512},
		boxDim: [ArgSlots]uint32{64, 64}, elementStrides: [ArgSlots]uint32{1, 1}}
	if c.Entry != EntryTiled || c.args() != want || c.Value != tmadesc.BaseTiled {
		t.Fatalf("BaseTiled makes the call\n%+v with arguments %+v\nwant\n%+v", c, c.args(), want)
	}
}

// The driver's enums (cuda.h) are the domain's: a reserved value reaches
// the driver as the next number past the enum, for it to refuse.
func TestReservedEnumsPassThrough(t *testing.T) {
	v := tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) {
		v.DType, v.Interleave, v.Swizzle, v.L2Promotion = tmadesc.DTypeReserved, tmadesc.InterleaveReserved,
			tmadesc.SwizzleReserved, tmadesc.L2Reserved
	})
	c := NewTensorMapCall(v).Value
	if c.DType != 16 || c.Interleave != 3 || c.Swizzle != 7 || c.L2Promotion != 4 {
		t.Fatalf("reserved values became %d %d %d %d, want 16 3 7 4", c.DType, c.Interleave, c.Swizzle, c.L2Promotion)
	}
	for s, want := range map[tmadesc.Swizzle]uint32{tmadesc.Swizzle128BAtom32B: 4, tmadesc.Swizzle128BAtom32BFlip8B: 5,
		tmadesc.Swizzle128BAtom64B: 6} {
		if got := uint32(s); got != want {
			t.Errorf("swizzle %s = %d, want CU_TENSOR_MAP_SWIZZLE value %d", s, got, want)
		}
	}
	if got := uint32(tmadesc.U6Align16B); got != 15 {
		t.Errorf("16U6_ALIGN16B = %d, want 15", got)
	}
}

// A rank above five reaches the driver as is, with five entries and zeros
// beyond, so the driver never reads past an array.
func TestRankAboveFive(t *testing.T) {
	c := NewTensorMapCall(tmadesc.With(tmadesc.BaseTiled, func(v *tmadesc.Value) { v.Rank = 7 }))
	if c.Value.Rank != 7 {
		t.Fatalf("rank %d", c.Value.Rank)
	}
	a := c.args()
	for i := tmadesc.MaxDims; i < ArgSlots; i++ {
		if a.globalDim[i] != 0 || a.boxDim[i] != 0 || a.elementStrides[i] != 0 {
			t.Fatalf("slot %d not zero: %+v", i, a)
		}
	}
}

func TestIm2colCorners(t *testing.T) {
	c := NewTensorMapCall(tmadesc.BaseIm2col)
	a := c.args()
	if c.Entry != EntryIm2col || a.lower != [ArgSlots]int32{-1, -1} || a.upper != [ArgSlots]int32{-1, -1} ||
		c.Value.ChannelsPerPixel != 64 || c.Value.PixelsPerColumn != 128 || a.boxDim != [ArgSlots]uint32{} {
		t.Fatalf("BaseIm2col makes the call %+v, arguments %+v", c, a)
	}
	w := NewTensorMapCall(tmadesc.With(tmadesc.BaseWide, func(v *tmadesc.Value) { v.WideMode = tmadesc.WideW128 }))
	if a := w.args(); w.Entry != EntryIm2colWide || a.lower[0] != -1 || a.upper[0] != -1 || w.Value.WideMode != 1 {
		t.Fatalf("BaseWide (W128) makes the call %+v", w)
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
