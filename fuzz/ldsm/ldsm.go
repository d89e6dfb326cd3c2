// Package ldsm is the ldmatrix / stmatrix domain: one shared-memory matrix
// movement as seed 001 describes it (its LDSM/STSM mode, size pattern,
// matrix count, transpose, result shape, memory spaces, alignment, register
// count and layout cosize) and as PTX spells it (.shape, .num, .trans,
// .type). Field ranges are wider than the legal ones, and both the seed's
// spellings (u16, .M832, u2to4) and PTX's (.b16, .m16n8) are representable,
// so either rule set can be shown wrong on a concrete value.
package ldsm

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "ldsm"

// Op is the direction of the movement.
type Op uint8

const (
	// Load is ldmatrix: shared memory into registers.
	Load Op = iota
	// Store is stmatrix: registers into shared memory.
	Store
)

// Ops spells the ops as PTX does.
var Ops = domain.Enum{"ldmatrix", "stmatrix"}

func (o Op) String() string { return Ops.Name(int(o)) }

// Enum names the values of Op: package desc and mutation read its size.
func (Op) Enum() domain.Enum { return Ops }

// Mode is seed 001's LDSM/STSM mode. ModeReserved stands for a tuple the
// seed's table has no row for (e.g. stmatrix .m16n8).
type Mode uint8

const (
	M88 Mode = iota
	MT88
	M816
	M832
	MT1616
	ModeReserved
)

// Modes spells the modes as the seed does, without the leading dot.
var Modes = domain.Enum{"M88", "MT88", "M816", "M832", "MT1616", "reserved"}

func (m Mode) String() string { return Modes.Name(int(m)) }

// Enum names the values of Mode: package desc and mutation read its size.
func (Mode) Enum() domain.Enum { return Modes }

// Shape is the matrix shape as PTX spells it. M8N32 is the seed's .M832
// shape, which PTX does not have.
type Shape uint8

const (
	M8N8 Shape = iota
	M16N16
	M8N16
	M16N8
	M8N32
)

// Shapes spells the shapes as PTX qualifiers, without the leading dot.
var Shapes = domain.Enum{"m8n8", "m16n16", "m8n16", "m16n8", "m8n32"}

func (s Shape) String() string { return Shapes.Name(int(s)) }

// Enum names the values of Shape: package desc and mutation read its size.
func (Shape) Enum() domain.Enum { return Shapes }

// modeShapes is the seed table's "Shape" column, read as a PTX shape.
var modeShapes = [...]Shape{M88: M8N8, MT88: M8N8, M816: M8N16, M832: M8N32, MT1616: M16N16}

// Shape is the matrix shape the seed's table gives mode; ok is false for
// ModeReserved, whose shape is free.
func (m Mode) Shape() (Shape, bool) {
	if int(m) < len(modeShapes) {
		return modeShapes[m], true
	}
	return 0, false
}

// RequiresTranspose is the seed table's "Transpose" column (false for
// ModeReserved, which has no row).
func (m Mode) RequiresTranspose() bool { return m == MT88 || m == MT1616 }

// ModeOf is the seed mode whose table row names shape s with transpose t;
// ModeReserved when no row does (.m16n8).
func ModeOf(s Shape, t bool) Mode {
	switch s {
	case M8N8:
		if t {
			return MT88
		}
		return M88
	case M8N16:
		return M816
	case M8N32:
		return M832
	case M16N16:
		return MT1616
	}
	return ModeReserved
}

// Dims is the matrix's rows and columns.
func (s Shape) Dims() (rows, cols int) {
	switch s {
	case M16N16:
		return 16, 16
	case M8N16:
		return 8, 16
	case M16N8:
		return 16, 8
	case M8N32:
		return 8, 32
	}
	return 8, 8
}

// ElemBits is the width of one destination element in registers: .b16 for
// .m8n8; 8 bits for .m16n16, .m8n16 and .m16n8 (4- and 6-bit sources are
// padded to 8); 4 bits for the seed's .M832, whose u2to4/s2to4 patterns
// widen 2-bit sources to 4 (our reading: every mode then moves 16-byte rows).
func (s Shape) ElemBits() int {
	switch s {
	case M8N8:
		return 16
	case M8N32:
		return 4
	}
	return 8
}

// ElementsPerLane is the closed form of a warp-wide fragment's size per
// lane: rows × cols × num / 32 lanes. Both rule sets use it for the result
// shape; the spec self-check recounts it by enumerating the fragment.
func ElementsPerLane(s Shape, num int) int {
	r, c := s.Dims()
	return r * c * num / 32
}

// RegistersPerLane is the closed form of the 32-bit registers each lane
// holds: rows × cols × element bits × num / (32 lanes × 32 bits).
func RegistersPerLane(s Shape, num int) int {
	r, c := s.Dims()
	return r * c * s.ElemBits() * num / (32 * 32)
}

// Size is the size pattern: the seed's spellings (u16, u8, u4to8, s4to8,
// u2to4, s2to4) beside PTX's (.b16, .b8, .b8x16.b6x16_p32,
// .b8x16.b4x16_p64), and a reserved value.
type Size uint8

const (
	U16 Size = iota
	B16
	U8
	B8
	U4to8
	S4to8
	U2to4
	S2to4
	B6P32 // .b8x16.b6x16_p32
	B4P64 // .b8x16.b4x16_p64
	SizeReserved
)

// Sizes spells the size patterns.
var Sizes = domain.Enum{"u16", "b16", "u8", "b8", "u4to8", "s4to8", "u2to4", "s2to4",
	"b8x16.b6x16_p32", "b8x16.b4x16_p64", "reserved"}

func (s Size) String() string { return Sizes.Name(int(s)) }

// Enum names the values of Size: package desc and mutation read its size.
func (Size) Enum() domain.Enum { return Sizes }

// Space is a memory space of a copy operand.
type Space uint8

const (
	Shared Space = iota
	Register
	Global
	Local
)

// Spaces spells the memory spaces.
var Spaces = domain.Enum{"shared", "register", "global", "local"}

func (s Space) String() string { return Spaces.Name(int(s)) }

// Enum names the values of Space: package desc and mutation read its size.
func (Space) Enum() domain.Enum { return Spaces }

// Field limits: wide enough for illegal values, small enough to enumerate.
const (
	MaxNum      = 15   // num_matrices 0..15 (legal: 1, 2, 4)
	MaxRank     = 3    // result_shape rank 0..3 (legal: 1)
	MaxRegs     = 31   // register_count and cosize 0..31
	MaxAlignLog = 10   // alignment 1..1024 bytes, a power of two
	MaxAlign    = 1024 // 1 << MaxAlignLog
)

// Value is one ldmatrix / stmatrix. Its tags are the domain's one
// description of its fields (package desc), in the byte order of the
// canonical form.
type Value struct {
	Op Op `field:"op"`
	// Mode is the seed's mode. Shape is its table shape unless Mode is
	// ModeReserved; then Shape is free. Keeping the two tied means both rule
	// sets always judge the same instruction.
	Mode        Mode  `field:"mode,derived"`
	Shape       Shape `field:"shape,derived"`
	NumMatrices uint8 `field:"num_matrices,range=0..15,default=1"`
	Transpose   bool  `field:"transpose,derived"`
	Size        Size  `field:"size,derived"`
	// ResultRank and ResultDim0 are the result fragment's shape (dim0 is 0
	// when the rank is 0).
	ResultRank uint8 `field:"result_rank,range=0..3,default=1"`
	ResultDim0 uint8 `field:"result_dim0,derived"`
	Src        Space `field:"src_space,derived"`
	Dst        Space `field:"dst_space,derived"`
	// Align is the shared operand's alignment in bytes, a power of two in
	// 1..MaxAlign.
	Align uint16 `field:"alignment,pow2,range=1..1024,default=16"`
	// RegisterCount is the registers the op names; Cosize is the cosize of
	// the register layout it was built from (verify_register_fragment).
	RegisterCount uint8         `field:"register_count,range=0..31,derived"`
	Cosize        uint8         `field:"cosize,range=0..31,derived"`
	Tgt           target.Target `field:"target,default=sm_90a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes. A known mode
// overrides the shape byte with its table shape.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Canonical ties the shape to a known mode's table shape.
func (v *Value) Canonical() {
	if s, ok := v.Mode.Shape(); ok {
		v.Shape = s
	}
}

// Unused says why a field has no meaning in v: a rank-0 result has no dim 0.
func (v *Value) Unused(field string) string {
	if field == "result_dim0" && v.ResultRank == 0 {
		return "a rank-0 result has no dim 0"
	}
	return ""
}

// String is a short human form, e.g. "ldmatrix M88 m8n8 x4 u16 sm_90a".
func (v Value) String() string {
	return fmt.Sprintf("%s %s %s x%d trans=%t %s %s", v.Op, v.Mode, v.Shape, v.NumMatrices, v.Transpose, v.Size, v.Tgt.Arch)
}

// Domain describes ldsm for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "ldmatrix / stmatrix tuples: seed 001's LDSM/STSM mode, copy and register-fragment checks, and the PTX forms",
	FuzzTarget: "FuzzLDSM",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
