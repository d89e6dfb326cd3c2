// Package blockscale is the SM120 block-scaled MMA domain: seed 001's
// scale lattice (K, A/B types, scale-factor type, scale vector size in
// elements, scale fragment width) together with the .kind that the PTX form
// mma.sync.aligned.kind::X.block_scale.scale_vec::NX.m16n8kK needs. The
// seed counts the scale vector in elements, PTX in scale factors per K:
// NX = K / scale_vector_size, so 32 elements at K = 32 is ::1X, 32 at
// K = 64 is ::2X and 16 at K = 64 is ::4X.
package blockscale

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "blockscale"

// Type is an A or B element type: the FP4/FP6/FP8 types and some that are
// never legal here.
type Type uint8

const (
	E2M1 Type = iota // fp4
	E3M2             // fp6
	E2M3             // fp6
	E4M3             // fp8
	E5M2             // fp8
	F16
	BF16
	TypeOther
)

// Types spells the element types as PTX does.
var Types = domain.Enum{"e2m1", "e3m2", "e2m3", "e4m3", "e5m2", "f16", "bf16", "other"}

func (t Type) String() string { return Types.Name(int(t)) }

// Enum names the values of Type: package desc and mutation read its size.
func (Type) Enum() domain.Enum { return Types }

// SF is the scale-factor type (.stype); the seed writes ue8m0 as e8m0.
type SF uint8

const (
	UE8M0 SF = iota
	UE4M3
	SFOther
)

// SFs spells the scale-factor types.
var SFs = domain.Enum{"ue8m0", "ue4m3", "other"}

func (s SF) String() string { return SFs.Name(int(s)) }

// Enum names the values of SF: package desc and mutation read its size.
func (SF) Enum() domain.Enum { return SFs }

// Kind is the .kind; F8F6F4 is the unscaled kind, illegal with .block_scale.
type Kind uint8

const (
	MXF8F6F4 Kind = iota
	MXF4
	MXF4NVF4
	F8F6F4
)

// Kinds spells the kinds as PTX does, without "kind::".
var Kinds = domain.Enum{"mxf8f6f4", "mxf4", "mxf4nvf4", "f8f6f4"}

func (k Kind) String() string { return Kinds.Name(int(k)) }

// Enum names the values of Kind: package desc and mutation read its size.
func (Kind) Enum() domain.Enum { return Kinds }

// K is the kind's K: 32 for mxf8f6f4 and f8f6f4 (m16n8k32), 64 for mxf4
// and mxf4nvf4 (m16n8k64).
func (k Kind) K() int {
	if k == MXF4 || k == MXF4NVF4 {
		return 64
	}
	return 32
}

// Value is one SM120 block-scaled MMA. Its tags are the domain's one
// description of its fields (package desc).
type Value struct {
	// K is the instruction's K; the shape is m16n8k<K>. Any byte; legal 32, 64.
	K      uint8 `field:"k,default=32"`
	AType  Type  `field:"a_type,derived"`
	BType  Type  `field:"b_type,derived"`
	SFType SF    `field:"sf_type"`
	// ScaleVecSize is the seed's scale_vector_size: elements per scale
	// factor (legal 16, 32). PTX's .scale_vec::NX has NX = K / ScaleVecSize.
	ScaleVecSize uint8 `field:"scale_vector_size,derived"`
	// ScaleFragmentBits is the seed's scale_fragment_bits: the bits of scale
	// factors one row uses per instruction.
	ScaleFragmentBits uint8         `field:"scale_fragment_bits,derived"`
	Kind              Kind          `field:"kind,derived"`
	Tgt               target.Target `field:"target,default=sm_120a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// ScaleVecN is PTX's N in .scale_vec::NX: how many scale factors split one
// row's K, K / ScaleVecSize; ok is false when that is not a whole number.
func (v Value) ScaleVecN() (n int, ok bool) {
	if v.ScaleVecSize == 0 || v.K%v.ScaleVecSize != 0 {
		return 0, false
	}
	return int(v.K / v.ScaleVecSize), true
}

// Shape is the PTX shape, "m16n8k<K>".
func (v Value) Shape() string { return fmt.Sprintf("m16n8k%d", v.K) }

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// String is a short human form, e.g. "mxf4 m16n8k64 e2m1.e2m1 ue8m0 svs=32 bits=16 sm_120a".
func (v Value) String() string {
	return fmt.Sprintf("%s %s %s.%s %s svs=%d bits=%d %s", v.Kind, v.Shape(), v.AType, v.BType, v.SFType,
		v.ScaleVecSize, v.ScaleFragmentBits, v.Tgt.Arch)
}

// Domain describes blockscale for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "SM120 block-scaled mma.sync: seed 001's scale lattice and the PTX kind/scale_vec/stype rules",
	FuzzTarget: "FuzzBlockScale",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
