package cuda

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestComparesShowTheFirstDifference: each GPU check's comparison counts
// the elements that differ and names the first by its lane and register,
// through the one mismatches loop.
func TestComparesShowTheFirstDifference(t *testing.T) {
	var regs [ldsmThreads][]uint32
	got := make([]byte, 4*ldsmThreads*2)
	for l := range regs {
		regs[l] = []uint32{uint32(l), uint32(l) + 100}
		binary.LittleEndian.PutUint32(got[8*l:], uint32(l))
		binary.LittleEndian.PutUint32(got[8*l+4:], uint32(l)+100)
	}
	if d := compareRegs(regs, got); d != "" {
		t.Errorf("equal registers: %q", d)
	}
	binary.LittleEndian.PutUint32(got[8*3+4:], 7)
	binary.LittleEndian.PutUint32(got[8*5:], 9)
	if d, want := compareRegs(regs, got), "2 registers differ; first: lane 3 matrix 1 holds 0x00000007, want 0x00000067"; d != want {
		t.Errorf("compareRegs: %q, want %q", d, want)
	}

	var frags [wgmmaThreads][4]float32
	out := make([]byte, 16*wgmmaThreads)
	frags[2][3] = 1.5
	if d, want := compareFrags(frags, out), "1 of 512 accumulators differ; first: thread 2 register 3 holds 0, want 1.5"; d != want {
		t.Errorf("compareFrags: %q, want %q", d, want)
	}
	binary.LittleEndian.PutUint32(out[16*2+12:], math.Float32bits(1.5))
	if d := compareFrags(frags, out); d != "" {
		t.Errorf("equal accumulators: %q", d)
	}

	if d, want := compareBytes([]byte{1, 2, 3}, []byte{1, 5, 6}), "2 bytes differ; first at 0x1: got 0x05, want 0x02"; d != want {
		t.Errorf("compareBytes: %q, want %q", d, want)
	}
}
