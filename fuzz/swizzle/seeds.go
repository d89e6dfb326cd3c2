package swizzle

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// named builds a value with a hardware mode.
func named(m Mode, k int64, x uint32, t target.Target) Value {
	b, mm, s := m.Triple()
	return Value{Mode: m, B: b, M: mm, S: s, K: k, X: x, Tgt: t}
}

// cute builds a value with a bare CuTe triple.
func cute(b, m, s uint8, k int64, x uint32, t target.Target) Value {
	return Value{Mode: CuTe, B: b, M: m, S: s, K: k, X: x, Tgt: t}
}

// Seeds are the hardware modes with offsets on and off their repeat period,
// addresses where a misaligned offset happens to commute and where it does
// not, and one value on each side of every rule of both sets.
func Seeds() []domain.Value {
	sm90a := target.MustParse("sm_90a", "")
	sm100a := target.MustParse("sm_100a", "")
	return []domain.Value{
		named(None, 1, 0x1234, sm90a),      // identity: commutes for every offset
		named(B32, 256, 0x40, sm90a),       // one 256-byte period
		named(B64, 512, 0x80, sm90a),       // one 512-byte period
		named(B128, 1024, 0, sm90a),        // one 1024-byte period
		named(B128, -2048, 0x3f0, sm90a),   // negative multiple of the period
		named(B128, 1, 0, sm90a),           // misaligned, but commutes at x=0
		named(B128, 1, 143, sm90a),         // carry into the XORed bits: fails here
		named(B128, 0x800000, 143, sm90a),  // only bits above the window: commutes
		named(B128, 16, 0x80, sm90a),       // offset inside the destination field
		named(B128, 128, 0x80, sm90a),      // offset inside the source field
		named(Reserved6, 0, 0, sm90a),      // unknown mode: must not fold to identity
		named(Reserved7, 1024, 0, sm100a),  // unknown mode on a Blackwell target
		named(B128Base32B, 512, 0, sm100a), // tcgen05's 128B with 32-byte atoms
		named(B128Base32B, 512, 0, sm90a),  // ... on a target without it
		named(B128, 1024, 0, target.MustParse("sm_80", "")),
		named(B128, 1024, 0, target.MustParse("sm_90a", "7.8")),
		named(None, 0, 0, target.MustParse("sm_80", "")),
		cute(3, 4, 3, 1024, 0x100, sm90a),   // the 128B triple, written bare
		cute(2, 3, 3, 256, 0, sm90a),        // no hardware mode has 8-byte chunks
		cute(3, 4, 1, 512, 0x30, sm90a),     // overlapping fields (S < B)
		cute(4, 4, 3, 2048, 0, sm90a),       // one bit wider than any hardware mode
		cute(0, 6, 6, 7, 0xffffffff, sm90a), // identity with a wrapping address
		cute(3, 4, 3, 8, 0xfffffff8, sm90a), // wraps past 2^32
	}
}
