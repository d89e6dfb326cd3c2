package cuda

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// The published swizzle patterns (CUDA programming guide, TMA swizzle): for
// each 128-byte row of a 1024-byte span, the 16-byte chunk of the row that
// each chunk position holds. Each row is the chunk index XOR the row's low
// bits: 3 of them for 128B, 2 for 64B, 1 for 32B.
var publishedPatterns = map[tmadesc.Swizzle][8][8]uint64{
	tmadesc.Swizzle128B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{4, 5, 6, 7, 0, 1, 2, 3},
		{5, 4, 7, 6, 1, 0, 3, 2},
		{6, 7, 4, 5, 2, 3, 0, 1},
		{7, 6, 5, 4, 3, 2, 1, 0},
	},
	tmadesc.Swizzle64B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{2, 3, 0, 1, 6, 7, 4, 5},
		{3, 2, 1, 0, 7, 6, 5, 4},
	},
	tmadesc.Swizzle32B: {
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
		{0, 1, 2, 3, 4, 5, 6, 7},
		{1, 0, 3, 2, 5, 4, 7, 6},
	},
}

func TestSwizzleMatchesPublishedPattern(t *testing.T) {
	for s, table := range publishedPatterns {
		for span := uint64(0); span < 4; span++ { // the pattern repeats every 1024 bytes
			for row := range uint64(8) {
				for chunk := range uint64(8) {
					for b := range uint64(16) {
						a := span*1024 + row*128 + chunk*16 + b
						want := span*1024 + row*128 + table[row][chunk]*16 + b
						if got := SwizzleAddr(s, a); got != want {
							t.Fatalf("%s: byte %#x goes to %#x, want %#x", s, a, got, want)
						}
					}
				}
			}
		}
	}
}

// The 128B_ATOM modes on addresses worked by hand: 32-byte atoms move by
// the 128-byte row's low two bits (<2,5,2>), 64-byte atoms by its low bit
// (<1,6,1>), FLIP_8B also swaps the 8-byte halves in odd rows; bits above
// 2^32 stay (the domain's model works on 32-bit addresses).
func TestSwizzleAtoms(t *testing.T) {
	for _, tc := range []struct {
		s       tmadesc.Swizzle
		a, want uint64
	}{
		{tmadesc.Swizzle128BAtom32B, 0x80, 0xa0},
		{tmadesc.Swizzle128BAtom32B, 0x100, 0x140},
		{tmadesc.Swizzle128BAtom32B, 0x180, 0x1e0},
		{tmadesc.Swizzle128BAtom32B, 0x1_0000_0080, 0x1_0000_00a0},
		{tmadesc.Swizzle128BAtom64B, 0x80, 0xc0},
		{tmadesc.Swizzle128BAtom64B, 0x100, 0x100},
		{tmadesc.Swizzle128BAtom32BFlip8B, 0x80, 0xa8},
		{tmadesc.Swizzle128BAtom32BFlip8B, 0x100, 0x140},
	} {
		if got := SwizzleAddr(tc.s, tc.a); got != tc.want {
			t.Errorf("%s: %#x -> %#x, want %#x", tc.s, tc.a, got, tc.want)
		}
	}
}

// Every pattern is an involution that keeps each byte in its 128-byte row
// and each 8-byte half whole.
func TestSwizzleIsAnInvolutionWithinRows(t *testing.T) {
	for s := range tmadesc.SwizzleReserved + 1 {
		for a := range uint64(4096) {
			b := SwizzleAddr(s, a)
			if SwizzleAddr(s, b) != a || b/128 != a/128 || b%8 != a%8 {
				t.Fatalf("%s: %#x -> %#x -> %#x", s, a, b, SwizzleAddr(s, b))
			}
		}
	}
}

// elem64 is a small element pattern for tests: the element index in every
// byte of its first two.
func elemIndex(size int) func(off uint64) []byte {
	return func(off uint64) []byte {
		b := make([]byte, size)
		binary.LittleEndian.PutUint16(b, uint16(off/uint64(size)+1))
		return b
	}
}

func tiled(f func(v *tmadesc.Value)) tmadesc.Value { return tmadesc.With(tmadesc.BaseTiled, f) }

// Without swizzle the box lands densely at the destination, dimension 0
// fastest, rows read at the global stride.
func TestExpectTileDense(t *testing.T) {
	v := tiled(func(v *tmadesc.Value) { v.Swizzle, v.BoxDim = tmadesc.SwizzleNone, [5]uint32{8, 4} })
	got, err := ExpectTile(v, [5]int32{16, 2}, 0x40, elemIndex(2))
	if err != nil {
		t.Fatal(err)
	}
	if got.BoxBytes != 64 || len(got.Bytes) != 256 {
		t.Fatalf("box %d bytes, window %d", got.BoxBytes, len(got.Bytes))
	}
	for row := range 4 {
		for col := range 8 {
			idx := (2+row)*256 + 16 + col // element index: stride 512 bytes = 256 elements
			at := 0x40 + 2*(8*row+col)
			if g := binary.LittleEndian.Uint16(got.Bytes[at:]); int(g) != idx+1 {
				t.Fatalf("element (%d, %d) at %#x holds %d, want %d", row, col, at, g, idx+1)
			}
		}
	}
	if got.Bytes[0x3f] != Sentinel || got.Bytes[0x80] != Sentinel || len(got.NaN) != 0 {
		t.Fatalf("bytes outside the box were predicted written")
	}
}

// With a swizzle, unswizzling the window gives the dense box back, and the
// swizzle phase follows the destination's absolute address.
func TestExpectTileSwizzledIsPermutedDense(t *testing.T) {
	for _, s := range []tmadesc.Swizzle{tmadesc.Swizzle32B, tmadesc.Swizzle64B, tmadesc.Swizzle128B, tmadesc.Swizzle128BAtom32B,
		tmadesc.Swizzle128BAtom32BFlip8B, tmadesc.Swizzle128BAtom64B} {
		span := int(s.Span())
		for _, dst := range []uint32{0, 0x80, 0x180, 0x300} {
			v := tiled(func(v *tmadesc.Value) { v.Swizzle, v.BoxDim = s, [5]uint32{uint32(span / 2), 16} })
			plain := tiled(func(v *tmadesc.Value) { v.Swizzle, v.BoxDim = tmadesc.SwizzleNone, [5]uint32{uint32(span / 2), 16} })
			sw, err := ExpectTile(v, [5]int32{0, 0}, dst, elemIndex(2))
			if err != nil {
				t.Fatal(err)
			}
			dense, err := ExpectTile(plain, [5]int32{0, 0}, dst, elemIndex(2))
			if err != nil {
				t.Fatal(err)
			}
			unswizzled := make([]byte, len(sw.Bytes))
			for a := range sw.Bytes {
				unswizzled[SwizzleAddr(s, uint64(a))] = sw.Bytes[a]
			}
			if !bytes.Equal(unswizzled, dense.Bytes) {
				t.Fatalf("%s at %#x: unswizzled window differs from the dense box", s, dst)
			}
			if s == tmadesc.Swizzle128B && dst == 0x80 && bytes.Equal(sw.Bytes[0x80:0x100], dense.Bytes[0x80:0x100]) {
				t.Fatalf("128B at 0x80: the first row was not permuted (row 1 of the pattern)")
			}
		}
	}
}

// Out-of-bounds elements are zero, or NaN spans with the NaN fill; the
// element stride skips coordinates in dimensions above 0.
func TestExpectTileOutOfBoundsAndStrides(t *testing.T) {
	v := tiled(func(v *tmadesc.Value) {
		v.DType, v.Swizzle, v.BoxDim, v.ElementStrides = tmadesc.Float32, tmadesc.SwizzleNone, [5]uint32{4, 4}, [5]uint32{3, 2}
		v.GlobalDim = [5]uint64{256, 256}
	})
	got, err := ExpectTile(v, [5]int32{-2, 254}, 0, elemIndex(4))
	if err != nil {
		t.Fatal(err)
	}
	// n = {4, ceil(4/2) = 2}: rows 254 and 256 (out), columns -2..1
	if got.BoxBytes != 32 {
		t.Fatalf("box %d bytes, want 32", got.BoxBytes)
	}
	for j1 := range 2 {
		for j0 := range 4 {
			x0, x1 := -2+j0, 254+2*j1
			g := binary.LittleEndian.Uint32(got.Bytes[4*(4*j1+j0):])
			want := uint32(0)
			if x0 >= 0 && x1 < 256 {
				want = uint32(x1*128 + x0 + 1) // stride 512 bytes = 128 floats
			}
			if g != want {
				t.Fatalf("element (%d, %d) = %d, want %d", x1, x0, g, want)
			}
		}
	}
	nan := tiled(func(w *tmadesc.Value) { *w = v; w.OOBFill = tmadesc.OOBNaN })
	got, err = ExpectTile(nan, [5]int32{-2, 254}, 0, elemIndex(4))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.NaN) != 6 { // 2 out-of-bounds columns in row 254, all 4 in row 256
		t.Fatalf("%d NaN spans, want 6: %v", len(got.NaN), got.NaN)
	}
	obs := append([]byte(nil), got.Bytes...)
	for _, s := range got.NaN {
		binary.LittleEndian.PutUint32(obs[s.Off:], 0x7fffffff)
	}
	if d := got.Compare(tmadesc.Float32, obs); d != "" {
		t.Fatalf("a NaN fill does not match: %s", d)
	}
	if d := got.Compare(tmadesc.Float32, got.Bytes); d == "" {
		t.Fatalf("zeros matched a NaN fill")
	}
}

func TestExpectTileNotPredicted(t *testing.T) {
	for name, v := range map[string]tmadesc.Value{
		"im2col":      tmadesc.BaseIm2col,
		"interleaved": tmadesc.BaseInterleaved,
		"packed":      tiled(func(v *tmadesc.Value) { v.DType = tmadesc.U4Align8B }),
		"rank 0":      tiled(func(v *tmadesc.Value) { v.Rank = 0 }),
		"empty box":   tiled(func(v *tmadesc.Value) { v.BoxDim[1] = 0 }),
		// 32-byte rows under the 128B swizzle: the H200 did not pack them.
		"narrow row": tiled(func(v *tmadesc.Value) { v.BoxDim[0] = 16 }),
	} {
		if _, err := ExpectTile(v, [5]int32{}, 0, elemIndex(2)); !errors.Is(err, ErrNotPredicted) {
			t.Errorf("%s: %v, want ErrNotPredicted", name, err)
		}
	}
}

// A row exactly as wide as the swizzle span is predicted (the hardware
// agreed on every such seed); the narrow-row case above is the boundary.
func TestExpectTileRowOfTheSpan(t *testing.T) {
	v := tiled(func(v *tmadesc.Value) { v.BoxDim[0] = 64 })
	if v.Swizzle.Span() != 128 || v.DType != tmadesc.Float16 {
		t.Fatalf("base value changed: %s %s", v.Swizzle, v.DType)
	}
	if _, err := ExpectTile(v, [5]int32{}, 0, elemIndex(2)); err != nil {
		t.Fatalf("128-byte rows under 128B: %v", err)
	}
}

func TestCompareReportsFirstDifference(t *testing.T) {
	want := TileExpect{Bytes: []byte{1, 2, 3, 4}}
	if d := want.Compare(tmadesc.UInt8, []byte{1, 2, 3, 4}); d != "" {
		t.Fatal(d)
	}
	if d := want.Compare(tmadesc.UInt8, []byte{1, 9, 3, 8}); d != "2 of 4 bytes differ; first at byte 0x1: got 0x09, want 0x02" {
		t.Fatal(d)
	}
}

func TestElementPatternIsNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(rngSeed(t), 2))
	for range iterations() {
		idx := rng.Uint64() >> rng.IntN(64)
		f16 := binary.LittleEndian.Uint16(ElementPattern(tmadesc.Float16, idx))
		bf := binary.LittleEndian.Uint16(ElementPattern(tmadesc.BFloat16, idx))
		f32 := math.Float32frombits(binary.LittleEndian.Uint32(ElementPattern(tmadesc.Float32, idx)))
		tf := binary.LittleEndian.Uint32(ElementPattern(tmadesc.TFloat32, idx))
		f64 := math.Float64frombits(binary.LittleEndian.Uint64(ElementPattern(tmadesc.Float64, idx)))
		if f16&0x7c00 != 0x3c00 || bf&0x7f80 != 0x3f80 || math.Abs(float64(f32)) < 1 || math.Abs(float64(f32)) >= 2 ||
			tf&0x1fff != 0 || math.Abs(f64) < 1 || math.Abs(f64) >= 2 {
			t.Fatalf("element %d: f16 %#x bf16 %#x f32 %g tf32 %#x f64 %g", idx, f16, bf, f32, tf, f64)
		}
	}
}

// span covers exactly the in-bounds elements the box reads, and is empty
// for a box entirely out of bounds.
func TestSpan(t *testing.T) {
	g, err := geometry(tiled(func(v *tmadesc.Value) { v.BoxDim, v.ElementStrides = [5]uint32{64, 8}, [5]uint32{1, 2} }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		coords [5]int32
		lo, hi uint64
	}{
		{[5]int32{0, 0}, 0, 6*512 + 128},                   // rows 0, 2, 4, 6; columns 0..63
		{[5]int32{-32, -4}, 0, 2*512 + 64},                 // rows -4..2 step 2: 0 and 2; columns 0..31
		{[5]int32{224, 253}, 253*512 + 448, 255*512 + 512}, // rows 253, 255; columns 224..255
		{[5]int32{256, 0}, 0, 0},
		{[5]int32{0, -100}, 0, 0},
	} {
		lo, hi, ok := g.span(tc.coords)
		if !ok || lo != tc.lo || hi != tc.hi {
			t.Errorf("span at %v = [%d, %d) ok=%v, want [%d, %d)", tc.coords[:2], lo, hi, ok, tc.lo, tc.hi)
		}
	}
	huge, _ := geometry(tiled(func(v *tmadesc.Value) { v.GlobalDim[1], v.GlobalStrides[0] = 1<<32, 1<<39 }))
	if _, _, ok := huge.span([5]int32{0, math.MaxInt32}); ok {
		t.Errorf("a span past 2^64 was accepted")
	}
}

func TestProbeCoords(t *testing.T) {
	g, _ := geometry(tmadesc.BaseTiled)
	got := probeCoords(g)
	want := [][5]int32{{0, 0}, {-32, -32}, {224, 224}}
	if len(got) != len(want) {
		t.Fatalf("probes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("probes %v, want %v", got, want)
		}
	}
	big, _ := geometry(tiled(func(v *tmadesc.Value) { v.GlobalDim[1] = 1 << 32 }))
	if n := len(probeCoords(big)); n != 2 {
		t.Fatalf("a high probe past int32 was kept: %v", probeCoords(big))
	}
}
