// Package matdesc is the shared-memory matrix descriptor domain: the 64-bit
// descriptors of wgmma (sm_90a) and tcgen05 (sm_100a-class). The value keeps
// byte values for the start address, LBO and SBO (so unaligned and too-large
// values are representable), every field of the PTX layout including the
// tcgen05 fixed-value bits, the bits no field covers, and the warpgroup
// uniformity the PTX ISA demands of wgmma descriptors. Raw converts it to and
// from the packed word in the PTX layout of its format.
package matdesc

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "matdesc"

// Format is the descriptor family.
type Format uint8

const (
	// WGMMA is the wgmma.mma_async matrix descriptor (PTX ISA 9.7.15.5.1.2.2).
	WGMMA Format = iota
	// TCGen05 is the tcgen05 shared memory descriptor (PTX ISA 9.7.16.4.1).
	TCGen05
)

// Formats spells the formats.
var Formats = domain.Enum{"wgmma", "tcgen05"}

func (f Format) String() string { return Formats.Name(int(f)) }

// Enum names the values of Format: package desc and mutation read its size.
func (Format) Enum() domain.Enum { return Formats }

// PTX layout bit positions shared by both formats.
const (
	shiftStart = 0
	shiftLBO   = 16
	shiftSBO   = 32
	shiftBase  = 49
	// tcgen05 only.
	shiftFixed46  = 46
	shiftLBOMode  = 52
	shiftFixed53  = 53
	shiftSwizzleT = 61
	// wgmma only.
	shiftSwizzleW = 62
)

// DescriptorEncode is matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4: the
// 14-bit field value of a byte value.
func DescriptorEncode(x uint32) uint64 { return uint64(x&0x3FFFF) >> 4 }

// ReservedMask returns the bits of format f's word that no field covers:
// 14-15 and 30-31 in both, and for wgmma also 46-48 and 52-61.
func ReservedMask(f Format) uint64 {
	m := uint64(0xC000C000)
	if f == WGMMA {
		m |= 7<<46 | 0x3FF<<52
	}
	return m
}

// Value is one descriptor: its fields, not the packed word, which loses
// the low bits and high bits of the three addresses (matrix-descriptor-
// encode); the word is a JSON spelling. Its tags are the domain's one
// description of its fields (package desc), in the byte order of the
// canonical form (the bools share one byte, where LBOMode stands).
type Value struct {
	Format Format `field:"format"`
	// StartAddr, LBO and SBO are byte values before matrix-descriptor-encode.
	StartAddr uint32 `field:"start_addr"`
	LBO       uint32 `field:"lbo"`
	SBO       uint32 `field:"sbo"`
	// BaseOffset is the 3-bit matrix base offset.
	BaseOffset uint8 `field:"base_offset,range=0..7"`
	// Swizzle is the field value: wgmma 0-3 (0 none, 1 128B, 2 64B, 3 32B),
	// tcgen05 0-7 (0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B;
	// 3, 5, 7 invalid).
	Swizzle uint8 `field:"swizzle,range=0..7"`
	// LBOMode is tcgen05 bit 52: the leading dimension stride is an absolute
	// address. Always false for wgmma.
	LBOMode bool `field:"lbo_mode"`
	// Uniform says the descriptor's contents are identical across the
	// warpgroup that issues the instruction.
	Uniform bool `field:"uniform,default=true"`
	// Fixed46 is tcgen05 bits 46-48 (PTX: 0b001); Fixed53 is bits 53-60
	// (PTX: 0). Both zero for wgmma, whose bits there are reserved.
	Fixed46 uint8 `field:"fixed_46_48,range=0..7,derived"`
	Fixed53 uint8 `field:"fixed_53_60"`
	// Reserved holds the word's bits outside every field, within
	// ReservedMask(Format).
	Reserved uint64        `field:"reserved"`
	Tgt      target.Target `field:"target,default=sm_90a"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Raw packs v in the PTX layout of its format. Start address, LBO and SBO go
// through matrix-descriptor-encode, so their low 4 bits and bits above 17
// are lost.
func (v Value) Raw() uint64 {
	w := DescriptorEncode(v.StartAddr)<<shiftStart | DescriptorEncode(v.LBO)<<shiftLBO | DescriptorEncode(v.SBO)<<shiftSBO |
		uint64(v.BaseOffset&7)<<shiftBase | v.Reserved&ReservedMask(v.Format)
	if v.Format == WGMMA {
		return w | uint64(v.Swizzle&3)<<shiftSwizzleW
	}
	w |= uint64(v.Fixed46&7)<<shiftFixed46 | uint64(v.Fixed53)<<shiftFixed53 | uint64(v.Swizzle&7)<<shiftSwizzleT
	if v.LBOMode {
		w |= 1 << shiftLBOMode
	}
	return w
}

// FromRaw reads a word in format f's PTX layout; every word reads to a value
// whose Raw is the word again.
func FromRaw(f Format, raw uint64, uniform bool, t target.Target) Value {
	field := func(shift uint) uint32 { return uint32(raw>>shift&0x3FFF) << 4 }
	v := Value{
		Format: f, StartAddr: field(shiftStart), LBO: field(shiftLBO), SBO: field(shiftSBO),
		BaseOffset: uint8(raw >> shiftBase & 7), Reserved: raw & ReservedMask(f), Uniform: uniform, Tgt: t,
	}
	if f == WGMMA {
		v.Swizzle = uint8(raw >> shiftSwizzleW & 3)
		return v
	}
	v.Swizzle = uint8(raw >> shiftSwizzleT & 7)
	v.Fixed46 = uint8(raw >> shiftFixed46 & 7)
	v.Fixed53 = uint8(raw >> shiftFixed53)
	v.LBOMode = raw>>shiftLBOMode&1 == 1
	return v
}

// MaxSwizzle is the largest swizzle field value of format f.
func MaxSwizzle(f Format) uint8 {
	if f == WGMMA {
		return 3
	}
	return 7
}

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes. Fields are masked
// to their widths (Canonical), and the tcgen05-only fields are zero for
// wgmma (Unused).
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// Canonical masks the swizzle and the reserved bits to the format's layout.
func (v *Value) Canonical() {
	v.Swizzle &= MaxSwizzle(v.Format)
	v.Reserved &= ReservedMask(v.Format)
}

// Unused says why a field has no meaning in v: lbo_mode and the fixed
// fields are tcgen05's.
func (v *Value) Unused(field string) string {
	switch field {
	case "lbo_mode", "fixed_46_48", "fixed_53_60":
		if v.Format == WGMMA {
			return "only the tcgen05 format has it (format wgmma)"
		}
	}
	return ""
}

// String is a short human form, e.g. "wgmma 0x4000000100010040 sm_90a".
func (v Value) String() string {
	return fmt.Sprintf("%s 0x%016x start=0x%x lbo=0x%x sbo=0x%x uniform=%v %s",
		v.Format, v.Raw(), v.StartAddr, v.LBO, v.SBO, v.Uniform, v.Tgt.Arch)
}

// Domain describes matdesc for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "wgmma and tcgen05 shared-memory matrix descriptors (64-bit words and their fields)",
	FuzzTarget: "FuzzMatDesc",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
