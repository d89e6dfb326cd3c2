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

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
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

// Layout is a row- or column-major operand layout: a bool, one bit of the
// canonical bytes.
type Layout bool

const (
	Row Layout = false
	Col Layout = true
)

// Layouts spells the layouts.
var Layouts = domain.Enum{"row", "col"}

func (l Layout) String() string {
	if l == Col {
		return Layouts[1]
	}
	return Layouts[0]
}

// Enum names the two layouts for package desc.
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
func (t Type) Bits() int { return domain.TypeBits(t.String()) }

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

// Value is one mma instruction. Its tags are the domain's one description
// of its fields (package desc); their order is the byte order of the
// canonical form (the bools share one byte, where ALayout stands).
type Value struct {
	Sparsity Sparsity `field:"sparsity"`
	// ShapeRank is the length of the mmaShape array; Shape holds its entries
	// (m, n, k when the rank is 3) with the entries past ShapeRank zero.
	ShapeRank uint8                `field:"shape_rank,range=0..4,derived,nokey"`
	Shape     [MaxShapeRank]uint16 `field:"shape,range=0..511,derived"`
	ALayout   Layout               `field:"a_layout"`
	BLayout   Layout               `field:"b_layout,default=col"`
	// AType, BType, CType, DType are the element types of A, B, C, D.
	AType Type `field:"a_type,default=f16"`
	BType Type `field:"b_type,derived"`
	CType Type `field:"c_type,derived"`
	DType Type `field:"d_type,derived"`
	// TF32 is nvgpu's tf32Enabled: f32 A and B operands multiply as .tf32.
	TF32      bool  `field:"tf32_enabled,derived"`
	Satfinite bool  `field:"satfinite"`
	BitOp     BitOp `field:"bit_op,derived"`
	// Selector is the sparsity selector (0..3), zero for dense mma.
	Selector uint8         `field:"selector,range=0..3"`
	Tgt      target.Target `field:"target,default=sm_80"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

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
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Count is how many entries of the shape v carries: its rank.
func (v *Value) Count(string) int { return int(v.ShapeRank) }

// Unused says why a field has no meaning in v: only a sparse mma has a
// selector.
func (v *Value) Unused(field string) string {
	if field == "selector" && !v.Sparse() {
		return "a dense mma has no sparsity selector"
	}
	return ""
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
