// Package swizzle is the swizzle/offset commutation domain: a CuTe swizzle
// Swizzle<B,M,S> (given as a triple or as a named hardware mode), an offset k
// and an address x. The question both rule sets answer is whether the rewrite
// add_offset(apply_swizzle(x), k) == apply_swizzle(add_offset(x, k)) is valid:
// seed 001 asks it for every x, the PTX ISA facts for this x.
package swizzle

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "swizzle"

// Mode says how the swizzle was named: as a bare CuTe triple, or as one of
// the hardware modes. Reserved6 and Reserved7 stand for a mode name that
// parsed to no known mode, which seed 001 says must not fold to identity.
type Mode uint8

const (
	CuTe Mode = iota
	None
	B32
	B64
	B128
	B128Base32B
	Reserved6
	Reserved7
)

// Modes spells the modes by their index.
var Modes = domain.Enum{"cute", "none", "32B", "64B", "128B", "128B_base32B", "reserved6", "reserved7"}

func (m Mode) String() string { return Modes.Name(int(m)) }

// Enum names the values of Mode: package desc and mutation read its size.
func (Mode) Enum() domain.Enum { return Modes }

// Triple is the CuTe Swizzle<B,M,S> of a named mode: none <0,4,3>, 32B
// <1,4,3>, 64B <2,4,3>, 128B <3,4,3>, 128B with 32-byte atoms <2,5,2>.
// Reserved modes have the zero triple; CuTe has none of its own.
func (m Mode) Triple() (b, mm, s uint8) {
	switch m {
	case None:
		return 0, 4, 3
	case B32:
		return 1, 4, 3
	case B64:
		return 2, 4, 3
	case B128:
		return 3, 4, 3
	case B128Base32B:
		return 2, 5, 2
	}
	return 0, 0, 0
}

// The representable triple: one bit beyond the widest hardware swizzle, and
// base and shift up to 6, so the affected window 2^(B+M+S) stays at most
// 64 KiB and a brute force over it stays cheap. S < B (overlapping bit
// fields) and M != 4 are representable on purpose.
const (
	MaxB = 4
	MaxM = 6
	MaxS = 6
)

// Value is one commutation question. Its tags are the domain's one
// description of its fields (package desc).
type Value struct {
	Mode Mode `field:"mode,derived"`
	// B, M, S are the CuTe Swizzle<B,M,S>: B bits, base M, shift S. For a
	// named mode they are its Triple.
	B uint8 `field:"b,range=0..4,derived"`
	M uint8 `field:"m,range=0..6,derived"`
	S uint8 `field:"s,range=0..6,derived"`
	// K is the offset added to the address.
	K int64 `field:"k"`
	// X is the address the rewrite is applied at.
	X   uint32        `field:"x"`
	Tgt target.Target `field:"target,default=sm_90a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Identity reports whether the swizzle maps every address to itself, which
// CuTe's Swizzle<0,M,S> does.
func (v Value) Identity() bool { return v.B == 0 }

// YMask is the source bit field: the B bits at M+S that the swizzle reads.
func (v Value) YMask() uint32 { return (1<<v.B - 1) << (v.M + v.S) }

// ZMask is the destination bit field: the B bits at M that the swizzle XORs.
func (v Value) ZMask() uint32 { return (1<<v.B - 1) << v.M }

// Window is the number of low address bits the swizzle depends on or
// changes; the pattern repeats every 2^Window bytes.
func (v Value) Window() uint { return uint(v.B) + uint(v.M) + uint(v.S) }

// Apply is CuTe's apply_swizzle: o ^ ((o & YMask) >> S).
func (v Value) Apply(o uint32) uint32 { return o ^ (o&v.YMask())>>v.S }

// AddOffset adds k to the 32-bit address x, wrapping modulo 2^32.
func AddOffset(x uint32, k int64) uint32 { return x + uint32(k) }

// Swizzled is apply_swizzle(add_offset(X, K)), the address the rewritten
// access reaches.
func (v Value) Swizzled() uint32 { return v.Apply(AddOffset(v.X, v.K)) }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// String is a short human form, e.g. "128B Swizzle<3,4,3> x=0x0 k=1024 sm_90a".
func (v Value) String() string {
	return fmt.Sprintf("%s Swizzle<%d,%d,%d> x=0x%x k=%d %s", v.Mode, v.B, v.M, v.S, v.X, v.K, v.Tgt.Arch)
}

// Domain describes swizzle for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "swizzle/offset commutation: CuTe Swizzle<B,M,S> or a hardware mode, an offset and an address",
	FuzzTarget: "FuzzSwizzle",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
