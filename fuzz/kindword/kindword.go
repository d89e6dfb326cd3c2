// Package kindword is the tcgen05.mma domain: the semantic instruction (kind,
// cta_group, scale vector, ws, sparse, block scale, collector::a, ashift,
// scale-input-d, arch-conditional variant, target) and seed 001's packed 9-bit
// kind word plus collector word. Both directions convert, so raw words from
// the seed can be fuzzed and judged. The seed's encoding overlays fields (ws
// on bit 0, sparse and block scale on bit 5), so semantic → raw is lossy; that
// loss is part of what the campaign measures.
package kindword

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "kindword"

// Kind is the mma kind, numbered as seed 001's 3-bit mma_kind field (6 is a
// hole in the seed's table, kept so every raw word has a value).
type Kind uint8

const (
	MXF4NVF4 Kind = iota
	I8
	MXF8F6F4
	F16
	TF32
	F8F6F4
	Reserved6
	MXF4
)

// Kinds spells the kinds by their field value.
var Kinds = domain.Enum{"mxf4nvf4", "i8", "mxf8f6f4", "f16", "tf32", "f8f6f4", "reserved6", "mxf4"}

func (k Kind) String() string { return Kinds.Name(int(k)) }

// Enum names the values of Kind: package desc and mutation read its size.
func (Kind) Enum() domain.Enum { return Kinds }

// BlockScaled reports whether k is one of the block-scaled (mx) kinds.
func (k Kind) BlockScaled() bool { return k == MXF8F6F4 || k == MXF4 || k == MXF4NVF4 }

// ScaleVec is the scale-vector size as written on the instruction. Default
// means none written; the seed encodes both Default and 1X as field value 0.
type ScaleVec uint8

const (
	ScaleDefault ScaleVec = iota
	Scale1X
	Scale2X
	Scale4X
	ScaleReserved3 // seed field value 3, reserved
)

// ScaleVecs spells the scale-vector sizes.
var ScaleVecs = domain.Enum{"", "1X", "2X", "4X", "reserved3"}

func (s ScaleVec) String() string { return ScaleVecs.Name(int(s)) }

// Enum names the values of ScaleVec: package desc and mutation read its size.
func (ScaleVec) Enum() domain.Enum { return ScaleVecs }

// Collector is the collector::a operation.
type Collector uint8

const (
	Discard Collector = iota
	LastUse
	Fill
	Use
)

// Collectors spells the collector::a operations.
var Collectors = domain.Enum{"discard", "lastuse", "fill", "use"}

func (c Collector) String() string { return Collectors.Name(int(c)) }

// Enum names the values of Collector: package desc and mutation read its size.
func (Collector) Enum() domain.Enum { return Collectors }

// Value is one tcgen05.mma instruction.
type Value struct {
	Kind Kind `field:"kind,default=f16"`
	// CTAGroup is the seed's 2-bit field: 1 and 2 are cta_group::1/::2; 0 and
	// 3 are reserved (the seed reads 3 as "4-CTA").
	CTAGroup   uint8    `field:"cta_group,range=0..3,default=1"`
	ScaleVec   ScaleVec `field:"scale_vec"`
	WS         bool     `field:"ws"`          // .ws, weight stationary
	Sparse     bool     `field:"sparse"`      // .sp
	BlockScale bool     `field:"block_scale"` // .block_scale
	// ScaleInputAcc marks a scale-input-d operand; ScaleInputD is its value
	// (0..15), zero when ScaleInputAcc is false.
	ScaleInputAcc bool `field:"scale_input_acc,derived,nokey"`
	AShift        bool `field:"ashift"` // .ashift
	ATMem         bool `field:"a_tmem"` // A operand in tensor memory (.ashift needs it)
	// ArchConditional is the seed verifier's is_arch_cond input: whether the
	// instruction is an arch-conditional variant.
	ArchConditional bool          `field:"arch_conditional,derived"`
	ScaleInputD     uint8         `field:"scale_input_d,range=0..15"`
	CollectorA      Collector     `field:"collector_a"`
	Tgt             target.Target `field:"target,default=sm_100a"`
}

// fields is the compiled description of Value: the semantic fields, not
// the seed's packed words, which lose information (ws overlays cta_group's
// bit 0, sparsity block_scale's bit 5); the words are JSON spellings.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Seed 001 packing of the kind word and the collector word.
const (
	bitWS         = 1 << 0
	bitScaleAcc   = 1 << 4
	bitBlockScale = 1 << 5 // also the sparsity bit: the seed overlays them
	// Collector word: bits 0-1 collector::a op, bit 2 ashift. The seed names
	// ASHIFT and COLLECTOR_A_USE_OR_FILL but not their bits; this is ours.
	CollectorAShift = 1 << 2
)

// Raw packs v into seed 001's 9-bit kind word: cta_group bits 0-1 (ws
// overlays bit 0), scale_vector_size 2-3, scale_input_acc 4, block_scale 5
// (sparsity overlays it), mma_kind 6-8.
func (v Value) Raw() uint16 {
	raw := uint16(v.CTAGroup & 3)
	if v.WS {
		raw |= bitWS
	}
	raw |= uint16(scaleField(v.ScaleVec)) << 2
	if v.ScaleInputAcc {
		raw |= bitScaleAcc
	}
	if v.BlockScale || v.Sparse {
		raw |= bitBlockScale
	}
	return raw | uint16(v.Kind&7)<<6
}

// scaleField is the seed's scale_vector_size field: 0=1X, 1=2X, 2=4X, 3 reserved.
func scaleField(s ScaleVec) uint8 {
	switch s {
	case Scale2X:
		return 1
	case Scale4X:
		return 2
	case ScaleReserved3:
		return 3
	}
	return 0
}

// Collector packs the collector word: op in bits 0-1, ashift in bit 2.
func (v Value) Collector() uint8 {
	c := uint8(v.CollectorA & 3)
	if v.AShift {
		c |= CollectorAShift
	}
	return c
}

// FromRaw reads a seed kind word and collector word as the seed does: ws is
// bit 0, and bit 5 is both block scale and sparsity.
func FromRaw(raw uint16, collector uint8, archCond bool, t target.Target) Value {
	return Value{
		Kind:            Kind(raw >> 6 & 7),
		CTAGroup:        uint8(raw & 3),
		ScaleVec:        [4]ScaleVec{ScaleDefault, Scale2X, Scale4X, ScaleReserved3}[raw>>2&3],
		WS:              raw&bitWS != 0,
		Sparse:          raw&bitBlockScale != 0,
		BlockScale:      raw&bitBlockScale != 0,
		ScaleInputAcc:   raw&bitScaleAcc != 0,
		CollectorA:      Collector(collector & 3),
		AShift:          collector&CollectorAShift != 0,
		ArchConditional: archCond,
		Tgt:             t,
	}
}

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Unused says why a field has no meaning in v: scale_input_d is the
// scale-input-d operand's.
func (v *Value) Unused(field string) string {
	if field == "scale_input_d" && !v.ScaleInputAcc {
		return "the instruction has no scale-input-d operand"
	}
	return ""
}

// String is a short human form, e.g. "i8 cta_group::2 raw=0x042 sm_100".
func (v Value) String() string {
	return fmt.Sprintf("%s cta_group::%d raw=0x%03x collector=%d %s", v.Kind, v.CTAGroup, v.Raw(), v.Collector(), v.Tgt.Arch)
}

// Domain describes kindword for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "tcgen05.mma instructions and seed 001's packed 9-bit kind word + collector word",
	FuzzTarget: "FuzzKindWord",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
