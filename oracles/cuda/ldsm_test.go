package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

// In the non-transposed layout lane t holds row t/4, columns 2(t%4) and
// 2(t%4)+1 of each matrix; the tile's b16 at byte b is b/2 + 1.
func TestExpectLDSMLayout(t *testing.T) {
	tile := LDSMTile()
	for _, num := range []int{1, 2, 4} {
		for _, off := range []int{16, 64, 1024} {
			regs := ExpectLDSM(LDSMForm{ldsm.Load, num, false}, off, tile)
			tr := ExpectLDSM(LDSMForm{ldsm.Load, num, true}, off, tile)
			for lane := range ldsmThreads {
				for m := range num {
					row, col := lane/4, 2*(lane%4)
					elem := func(r, c int) uint32 { return uint32((off+16*(8*m+r)+2*c)/2 + 1) }
					if want := elem(row, col) | elem(row, col+1)<<16; regs[lane][m] != want {
						t.Fatalf("x%d off %d lane %d matrix %d: %#x, want %#x", num, off, lane, m, regs[lane][m], want)
					}
					if want := elem(col, row) | elem(col+1, row)<<16; tr[lane][m] != want {
						t.Fatalf("x%d.trans off %d lane %d matrix %d: %#x, want %#x", num, off, lane, m, tr[lane][m], want)
					}
				}
			}
		}
	}
}

// stmatrix is ldmatrix backwards: loading what a store wrote, with the
// same form and offset, gives every lane its own registers back.
func TestSTSMInvertsLDSM(t *testing.T) {
	for _, f := range LDSMForms() {
		if f.Op != ldsm.Store {
			continue
		}
		for _, off := range []int{16, 48, 512, 1024} {
			tile := ExpectSTSM(f, off)
			back := ExpectLDSM(LDSMForm{ldsm.Load, f.Num, f.Trans}, off, tile)
			for lane := range ldsmThreads {
				for m := range f.Num {
					if back[lane][m] != LDSMStoreValue(lane, m) {
						t.Fatalf("%s off %d: lane %d matrix %d reads back %#x, stored %#x", f.Instruction(), off, lane, m,
							back[lane][m], LDSMStoreValue(lane, m))
					}
				}
			}
			written := 0
			for i, b := range tile {
				if b != Sentinel {
					written++
					if i < off || i >= off+128*f.Num {
						t.Fatalf("%s off %d wrote byte %#x outside its rows", f.Instruction(), off, i)
					}
				}
			}
			if written != 128*f.Num {
				t.Fatalf("%s wrote %d bytes, want %d", f.Instruction(), written, 128*f.Num)
			}
		}
	}
}

// A misaligned row address reads the bytes at that address: the prediction
// of a hardware that neither faults nor rounds the address.
func TestExpectLDSMMisaligned(t *testing.T) {
	tile := LDSMTile()
	regs := ExpectLDSM(LDSMForm{ldsm.Load, 1, false}, 1, tile)
	want := uint32(tile[1]) | uint32(tile[2])<<8 | uint32(tile[3])<<16 | uint32(tile[4])<<24
	if regs[0][0] != want {
		t.Fatalf("lane 0 at offset 1: %#x, want %#x", regs[0][0], want)
	}
	if LDSMOffset(1) != 1 || LDSMOffset(16) != 16 || LDSMOffset(1024) != 1024 {
		t.Fatalf("offsets %d %d %d", LDSMOffset(1), LDSMOffset(16), LDSMOffset(1024))
	}
	if v := binary.LittleEndian.Uint16(tile[2046:]); v != 1024 {
		t.Fatalf("last b16 of the tile is %d", v)
	}
}

func TestLDSMForms(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range LDSMForms() {
		if seen[f.Kernel()] {
			t.Fatalf("kernel %s twice", f.Kernel())
		}
		seen[f.Kernel()] = true
	}
	if len(seen) != 12 {
		t.Fatalf("%d forms, want 12", len(seen))
	}
	if got := (LDSMForm{ldsm.Store, 4, true}).Instruction(); got != "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16" {
		t.Fatal(got)
	}
}
