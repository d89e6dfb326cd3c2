package cuda

import (
	"errors"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func wgmmaDesc(start, lbo, sbo uint32, swizzle uint8) matdesc.Value {
	return matdesc.Value{Format: matdesc.WGMMA, StartAddr: start, LBO: lbo, SBO: sbo, Swizzle: swizzle, Uniform: true,
		Tgt: target.MustParse("sm_90a", "")}
}

func TestWGMMAValue(t *testing.T) {
	seen := map[int]bool{}
	for a := uint32(0); a < 1<<18; a += 2 {
		v := WGMMAValue(a)
		if v < -8 || v > 8 {
			t.Fatalf("value %d at %#x", v, a)
		}
		seen[v] = true
		if a >= 2 && v == WGMMAValue(a-2) {
			t.Fatalf("neighbours %#x and %#x hold the same value", a-2, a)
		}
	}
	if len(seen) != 17 {
		t.Fatalf("%d distinct values", len(seen))
	}
}

// The no-swizzle canonical layout with LBO = 128 (the second K half) and
// SBO = 256 (the next eight rows) tiles 64x16 f16 densely: 2 KiB, each
// address once.
func TestWGMMAAddressesNoSwizzle(t *testing.T) {
	d := wgmmaDesc(0x1000, 128, 256, 0)
	seen := map[uint64]bool{}
	for r := range WGMMAM {
		for k := range WGMMAK {
			a := wgmmaAddr(d, r, k)
			if a < 0x1000 || a >= 0x1800 || a%2 != 0 || seen[a] {
				t.Fatalf("(%d, %d) at %#x", r, k, a)
			}
			seen[a] = true
		}
	}
	if got := wgmmaAddr(d, 9, 10); got != 0x1000+1*16+1*256+2*2+1*128 {
		t.Fatalf("(9, 10) at %#x", got)
	}
}

// With 128B swizzle each row is 128 bytes of a 1024-byte atom and its
// 16-byte chunks are XOR-ed with the row: row r's first chunk is chunk r%8.
func TestWGMMAAddressesSwizzle128B(t *testing.T) {
	d := wgmmaDesc(0x2000, 0, 1024, 1)
	for r := range 16 {
		a := wgmmaAddr(d, r, 0)
		want := uint64(0x2000 + (r/8)*1024 + (r%8)*128 + (r%8)*16)
		if a != want {
			t.Fatalf("row %d starts at %#x, want %#x", r, a, want)
		}
		if b := wgmmaAddr(d, r, 8); b != want^16 {
			t.Fatalf("row %d, k 8 at %#x, want %#x", r, b, want^16)
		}
	}
	// start addresses keep only what the descriptor encodes: bits 4..17
	if wgmmaAddr(wgmmaDesc(0x2007, 0, 1024, 1), 0, 0) != 0x2000 {
		t.Fatal("the start address kept bits the descriptor drops")
	}
}

func TestWGMMAFragments(t *testing.T) {
	d := wgmmaDesc(0x1000, 128, 256, 0)
	frag, err := WGMMAFragments(d, 0x400, 0x10000)
	if err != nil {
		t.Fatal(err)
	}
	dot := func(m, n int) float32 {
		s := 0
		for k := range WGMMAK {
			s += WGMMAValue(uint32(wgmmaAddr(d, m, k))) * WGMMAValue(uint32(wgmmaAddr(d, n, k)))
		}
		return float32(s)
	}
	// thread 37: warp 1, lane 5: rows 16+1 and 16+1+8, columns 2 and 3
	want := [4]float32{dot(17, 2), dot(17, 3), dot(25, 2), dot(25, 3)}
	if frag[37] != want {
		t.Fatalf("thread 37 holds %v, want %v", frag[37], want)
	}
	if frag[0][0] <= 0 {
		t.Fatalf("D[0][0] = A row 0 . itself = %g, want > 0", frag[0][0])
	}
	if _, err := WGMMAFragments(d, 0x1400, 0x10000); !errors.Is(err, ErrNotPredicted) {
		t.Fatalf("reads below the filled range: %v", err)
	}
	// The base offset: ignored without a swizzle (as on the H200), not
	// predicted with one (the H200 used it).
	based := d
	based.BaseOffset = 3
	if got, err := WGMMAFragments(based, 0x400, 0x10000); err != nil || got != frag {
		t.Fatalf("base offset without swizzle: %v, fragments differ: %v", err, got != frag)
	}
	based.Swizzle = 1
	if _, err := WGMMAFragments(based, 0, 1<<18); !errors.Is(err, ErrNotPredicted) {
		t.Fatalf("base offset under the 128B swizzle: %v", err)
	}
	tc := d
	tc.Format = matdesc.TCGen05
	if _, err := WGMMAFragments(tc, 0, 1<<18); !errors.Is(err, ErrNotPredicted) {
		t.Fatalf("tcgen05: %v", err)
	}
}
