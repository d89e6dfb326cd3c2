// Package mma is the warp-level mma.sync / mma.sp domain: one matrix
// multiply-accumulate as seed 004's nvgpu.mma.sync / nvgpu.mma.sp.sync sees
// it (an mmaShape array, a tf32Enabled attribute, a sparsity selector) and as
// the PTX instruction it lowers to (shape, layouts, the four element types,
// .satfinite, the single-bit operation). Field ranges are wider than the
// legal ones: shapes of any rank, every type in every position, selectors up
// to 3.
package mma

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "mma"

// Sparsity is the opcode: dense mma, mma.sp, or mma.sp::ordered_metadata.
type Sparsity uint8

const (
	Dense Sparsity = iota
	SP
	SPOrdered
)

// Sparsities spells the opcodes' sparsity.
var Sparsities = domain.Enum{"dense", "sp", "sp::ordered_metadata"}

func (s Sparsity) String() string { return Sparsities.Name(int(s)) }

// Enum names the values of Sparsity: package desc and mutation read its size.
func (Sparsity) Enum() domain.Enum { return Sparsities }

// Layout is a row- or column-major operand layout.
type Layout uint8

const (
	Row Layout = iota
	Col
)

// Layouts spells the layouts.
var Layouts = domain.Enum{"row", "col"}

func (l Layout) String() string { return Layouts.Name(int(l)) }

// Enum names the values of Layout: package desc and mutation read its size.
func (Layout) Enum() domain.Enum { return Layouts }

// Type is an element type, in any of the four positions. F32 as an A or B
// type is the MLIR f32 operand: with tf32Enabled it multiplies as .tf32,
// without it no mma takes it.
type Type uint8

const (
	F16 Type = iota
	BF16
	F32
	F64
	E4M3
	E5M2
	S8
	U8
	S4
	U4
	B1
	S32
)

// Types spells the element types.
var Types = domain.Enum{"f16", "bf16", "f32", "f64", "e4m3", "e5m2", "s8", "u8", "s4", "u4", "b1", "s32"}

func (t Type) String() string { return Types.Name(int(t)) }

// Enum names the values of Type: package desc and mutation read its size.
func (Type) Enum() domain.Enum { return Types }

// Bits is the element's width in bits.
func (t Type) Bits() int {
	switch t {
	case F16, BF16:
		return 16
	case F32, S32:
		return 32
	case F64:
		return 64
	case S4, U4:
		return 4
	case B1:
		return 1
	}
	return 8
}

// Float reports whether t is a floating-point type.
func (t Type) Float() bool { return t <= E5M2 }

// BitOp is the single-bit operation written as .xor.popc or .and.popc.
type BitOp uint8

const (
	NoBitOp BitOp = iota
	XorPopc
	AndPopc
)

// BitOps spells the single-bit operations.
var BitOps = domain.Enum{"none", "xor", "and"}

func (b BitOp) String() string { return BitOps.Name(int(b)) }

// Enum names the values of BitOp: package desc and mutation read its size.
func (BitOp) Enum() domain.Enum { return BitOps }

// MaxShapeRank is the longest mmaShape array a value can hold.
const MaxShapeRank = 4

// MaxDim bounds every shape entry.
const MaxDim = 511

// Value is one mma instruction.
type Value struct {
	Sparsity Sparsity
	// ShapeRank is the length of the mmaShape array; Shape holds its entries
	// (m, n, k when the rank is 3) with the entries past ShapeRank zero.
	ShapeRank uint8
	Shape     [MaxShapeRank]uint16
	ALayout   Layout
	BLayout   Layout
	// AType, BType, CType, DType are the element types of A, B, C, D.
	AType, BType, CType, DType Type
	// TF32 is nvgpu's tf32Enabled: f32 A and B operands multiply as .tf32.
	TF32      bool
	Satfinite bool
	BitOp     BitOp
	// Selector is the sparsity selector (0..3), zero for dense mma.
	Selector uint8
	Tgt      target.Target
}

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// M, N and K are the shape entries; zero when the array is too short.
func (v Value) M() int { return int(v.Shape[0]) }
func (v Value) N() int { return int(v.Shape[1]) }
func (v Value) K() int { return int(v.Shape[2]) }

// Sparse reports whether the opcode is mma.sp or mma.sp::ordered_metadata.
func (v Value) Sparse() bool { return v.Sparsity != Dense }

// ShapeName spells a rank-3 shape as PTX does, "m16n8k16"; other ranks as
// the array, "[16 8]".
func (v Value) ShapeName() string {
	if v.ShapeRank == 3 {
		return fmt.Sprintf("m%dn%dk%d", v.Shape[0], v.Shape[1], v.Shape[2])
	}
	return fmt.Sprint(v.Shape[:v.ShapeRank])
}

// TypeName spells an A or B type as PTX does: f32 with tf32Enabled is tf32.
func (v Value) TypeName(t Type) string {
	if t == F32 && v.TF32 {
		return "tf32"
	}
	return t.String()
}

// Encode implements domain.Value.
func (v Value) Encode() []byte {
	var w domain.Writer
	w.U8(uint8(v.Sparsity))
	w.U8(v.ShapeRank)
	for _, d := range v.Shape {
		w.U16(d)
	}
	w.Flags(v.ALayout == Col, v.BLayout == Col, v.TF32, v.Satfinite)
	for _, t := range []Type{v.AType, v.BType, v.CType, v.DType} {
		w.U8(uint8(t))
	}
	w.U8(uint8(v.BitOp))
	w.U8(v.Selector)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{Sparsity: Sparsity(r.Index(len(Sparsities))), ShapeRank: uint8(r.Index(MaxShapeRank + 1))}
	for i := range v.Shape {
		if d := r.U16() & MaxDim; i < int(v.ShapeRank) {
			v.Shape[i] = d
		}
	}
	var aCol, bCol bool
	r.Flags(&aCol, &bCol, &v.TF32, &v.Satfinite)
	if aCol {
		v.ALayout = Col
	}
	if bCol {
		v.BLayout = Col
	}
	for _, t := range []*Type{&v.AType, &v.BType, &v.CType, &v.DType} {
		*t = Type(r.Index(len(Types)))
	}
	v.BitOp = BitOp(r.Index(len(BitOps)))
	if v.Selector = r.U8() & 3; !v.Sparse() {
		v.Selector = 0
	}
	v.Tgt = target.Decode(r.U8(), r.U8())
	return v, nil
}

// String is a short human form, e.g. "mma m16n8k16 f32.f16.f16.f32 sm_80".
func (v Value) String() string {
	return fmt.Sprintf("mma %s %s %s.%s.%s.%s %s", v.Sparsity, v.ShapeName(),
		v.DType, v.TypeName(v.AType), v.TypeName(v.BType), v.CType, v.Tgt.Arch)
}

// Domain describes mma for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "warp-level mma.sync / mma.sp forms: seed 004's nvgpu.mma.sync and nvgpu.mma.sp.sync and the PTX they lower to",
	FuzzTarget: "FuzzMMA",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
