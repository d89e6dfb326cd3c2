// Package wgmma is the wgmma.mma_async domain: one warpgroup matrix
// multiply-accumulate as seed 004's nvgpu.warpgroup.mma sees it (rank-2
// fragments, A, B and accumulator shapes, accumulator and result types,
// transpose flags) and as the PTX instruction it lowers to (m64nNkK, the
// .dtype/.atype/.btype triple, A from registers or a shared-memory
// descriptor, the imm-scale and imm-trans immediates, .sp with its selector,
// .satfinite). Field ranges are wider than the legal ones: any M, N, K up to
// 511, reserved types, scale immediates from -2 to 2.
package wgmma

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "wgmma"

// Type is an A or B element type. F64 and S4 exist for mma but not for
// wgmma; they are kept as illegal inputs.
type Type uint8

const (
	F16 Type = iota
	BF16
	TF32
	E4M3
	E5M2
	S8
	U8
	B1
	F64
	S4
)

// Types spells the input types.
var Types = domain.Enum{"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f64", "s4"}

func (t Type) String() string { return Types.Name(int(t)) }

// Enum names the input types for package desc.
func (Type) Enum() domain.Enum { return Types }

// Bits is the element's width in bits.
func (t Type) Bits() int { return domain.TypeBits(t.String()) }

// FP8 reports whether t is .e4m3 or .e5m2; Int8 whether it is .s8 or .u8.
func (t Type) FP8() bool  { return t == E4M3 || t == E5M2 }
func (t Type) Int8() bool { return t == S8 || t == U8 }

// AccType is an accumulator (.dtype) or result type; F64 is kept illegal.
type AccType uint8

const (
	AccF16 AccType = iota
	AccF32
	AccS32
	AccF64
)

// AccTypes spells the accumulator types.
var AccTypes = domain.Enum{"f16", "f32", "s32", "f64"}

func (a AccType) String() string { return AccTypes.Name(int(a)) }

// Enum names the accumulator types for package desc.
func (AccType) Enum() domain.Enum { return AccTypes }

// MaxDim bounds M, N, K and B's K (their tagged range).
const MaxDim = 511

// Value is one wgmma.mma_async instruction. Its tags are the domain's one
// description of its fields (package desc): the byte codec, the JSON form,
// mutation's ranges and the docs derive from them.
type Value struct {
	// Rank is the rank of the matrix fragments; the seed demands 2.
	Rank uint8 `field:"rank,range=0..4,default=2"`
	// M, N, K is the instruction shape (A is MxK); BK is B's K, compatible
	// when it equals K.
	M  uint16 `field:"m,range=0..511,default=64"`
	N  uint16 `field:"n,range=0..511,default=128"`
	K  uint16 `field:"k,range=0..511,derived"`
	BK uint16 `field:"b_k,range=0..511,derived"`

	AType Type `field:"a_type,default=f16"`
	BType Type `field:"b_type,derived"`
	// DType is the accumulator .dtype; ResultType the result the seed's op
	// declares (PTX's d is both, so one type).
	DType      AccType `field:"d_type,derived"`
	ResultType AccType `field:"result_type,derived"`
	// ARegister: A comes from registers rather than a shared-memory descriptor.
	ARegister bool `field:"a_source,names=descriptor|register"`
	TransA    bool `field:"trans_a"`              // imm-trans-a
	TransB    bool `field:"trans_b"`              // imm-trans-b
	ScaleD    bool `field:"scale_d,default=true"` // the scale-d predicate: D = A*B + D when true
	// ScaleA and ScaleB are imm-scale-a/b; -1 negates, 1 does not.
	ScaleA    int8          `field:"scale_a,range=-2..2,default=1"`
	ScaleB    int8          `field:"scale_b,range=-2..2,default=1"`
	Sparse    bool          `field:"sparse"`            // wgmma.mma_async.sp
	SpSel     uint8         `field:"sp_sel,range=0..3"` // sparsity selector, zero when dense
	Satfinite bool          `field:"satfinite"`
	Tgt       target.Target `field:"target,default=sm_90a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// ShapeName spells the shape as PTX does, "m64n128k16".
func (v Value) ShapeName() string { return fmt.Sprintf("m%dn%dk%d", v.M, v.N, v.K) }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Unused says why a field has no meaning in v: only .sp has a selector.
func (v *Value) Unused(field string) string {
	if field == "sp_sel" && !v.Sparse {
		return "a dense wgmma has no sparsity selector"
	}
	return ""
}

// String is a short human form, e.g. "wgmma m64n128k16 f32.f16.f16 sm_90a".
func (v Value) String() string {
	return fmt.Sprintf("wgmma %s %s.%s.%s %s", v.ShapeName(), v.DType, v.AType, v.BType, v.Tgt.Arch)
}

// Domain describes wgmma for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "wgmma.mma_async forms: seed 004's nvgpu.warpgroup.mma and the PTX it lowers to",
	FuzzTarget: "FuzzWGMMA",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}

// NaturalK is the K of t's PTX forms: one 32-byte row of A (16 for
// f16/bf16, 8 for tf32, 32 for 8-bit types, 256 for .b1), twice that with .sp.
func NaturalK(t Type, sparse bool) uint16 {
	k := uint16(256 / t.Bits())
	if sparse {
		k *= 2
	}
	return k
}
