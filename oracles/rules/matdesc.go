package rules

import (
	"fmt"

	md "github.com/legalfuzz/legalfuzz/fuzz/matdesc"
)

func init() {
	register(matdescSeed, matdescPTXISA)
	registerSelfCheck(md.Name, checkMatDescLayouts)
}

const (
	seed000Claims     = "seed 000, Claim Verification Matrix: "
	seed004LayoutText = "start_addr[14] | lbo[16] | sbo[16] | base_offset[3] | reserved[3] | swizzle_mode[2] | pad[10]"
)

// seed004Field is one field of seed 004's nvgpu.warpgroup.descriptor layout,
// read least significant field first (start_addr at bit 0, as in the PTX ISA).
type seed004Field struct {
	shift, width uint
}

func (f seed004Field) put(x uint64) uint64 { return (x & (1<<f.width - 1)) << f.shift }
func (f seed004Field) get(w uint64) uint64 { return w >> f.shift & (1<<f.width - 1) }

// seed004Fields are the values seed 004's layout holds for v: the encoded
// start address, LBO and SBO (seed 000's matrix-descriptor-encode), the base
// offset, and the swizzle field cut to 2 bits as the shl/or chain cuts it.
func seed004Fields(v md.Value) [5]uint64 {
	return [5]uint64{md.DescriptorEncode(v.StartAddr), md.DescriptorEncode(v.LBO), md.DescriptorEncode(v.SBO),
		uint64(v.BaseOffset & 7), uint64(v.Swizzle & 3)}
}

// seed004Layout places start_addr, lbo, sbo, base_offset and swizzle_mode;
// reserved[3] (bits 49-51) and pad[10] (54-63) stay zero.
var seed004Layout = [5]seed004Field{{0, 14}, {14, 16}, {30, 16}, {46, 3}, {52, 2}}

// packSeed004 packs v in seed 004's layout; the reserved and pad bits are 0.
func packSeed004(v md.Value) uint64 {
	var w uint64
	for i, x := range seed004Fields(v) {
		w |= seed004Layout[i].put(x)
	}
	return w
}

func unpackSeed004(w uint64) [5]uint64 {
	var out [5]uint64
	for i, f := range seed004Layout {
		out[i] = f.get(w)
	}
	return out
}

func seed000Rule(name, msg, row, doubt string) *Rule {
	return seedRule(md.Name, name, msg, seed000Claims+row, doubt)
}

// tooWide reports whether any byte value has bits above bit 17, which
// matrix-descriptor-encode drops.
func tooWide(v md.Value) bool { return (v.StartAddr|v.LBO|v.SBO)&^0x3FFFF != 0 }

// misaligned reports whether any byte value is not a multiple of 16.
func misaligned(v md.Value) bool { return (v.StartAddr|v.LBO|v.SBO)&15 != 0 }

const doubtTcgen05Uniform = "tcgen05.mma is issued by one thread: the PTX ISA states the warpgroup-uniform rule for wgmma descriptors only, " +
	"and the seed applies it to every descriptor"

// matdescSeed is seed 000's WGMMA descriptor claims and seed 004's floor
// and bit layout. The seeds know one descriptor: their target gates apply
// to the wgmma format, their encoding claims to both formats (seed 000's
// swizzle claim quotes the tcgen05 table). On accept it carries the word
// packed in seed 004's layout.
var matdescSeed = &Ladder[md.Value]{Set: Seed, Domain: md.Name,
	Value: func(v md.Value) string { return fmt.Sprintf("0x%016x", packSeed004(v)) },
	Checks: []Check[md.Value]{
		{Rule: seedRule(md.Name, "floor",
			"nvgpu.warpgroup.descriptor | sm_90a | (no PTX; SMEM descriptor synthesis) | n/a",
			"seed 004, Per-Arch Availability (SM floor of nvgpu.warpgroup.descriptor)", ""),
			Fires: func(v md.Value) bool { return v.Format == md.WGMMA && belowSM90a(v) }},
		{Rule: seed000Rule("quantization",
			"WGMMA descriptor quantization: `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4` (16B granularity).",
			"descriptor quantization (start address, LBO or SBO beyond the 18 bits it keeps)", ""),
			Fires: tooWide},
		{Rule: seed000Rule("swizzle-enum",
			"WGMMA descriptor has enumerated swizzle modes and disallows invalid bit patterns.",
			"enumerated swizzle modes (its evidence: values 3, 5, 7 invalid)",
			"the values 3, 5, 7 come from the tcgen05 3-bit field; ptx-facts: in the wgmma 2-bit field (62-63) 3 is 32B swizzle, a valid mode"),
			Fires: func(v md.Value) bool { return v.Swizzle == 3 || v.Swizzle == 5 || v.Swizzle == 7 }},
		{Rule: seed000Rule("uniform",
			"WGMMA descriptors must be warpgroup-uniform (“identical across all warps in a warpgroup”).",
			"warpgroup-uniform descriptors", doubtTcgen05Uniform),
			Fires: func(v md.Value) bool { return !v.Uniform }},
		{Rule: seed000Rule("alignment",
			"WGMMA shared-memory multiplicand addresses must be 16B-aligned; non-16B offsets break encodability.",
			"16B-aligned addresses and offsets", ""),
			Fires: misaligned},
		{Rule: seed000Rule("availability",
			"WGMMA availability is a Hopper feature gated by target notes (e.g., `sm_90a`).",
			"WGMMA availability (sm_90a)", ""),
			Fires: func(v md.Value) bool { return v.Format == md.WGMMA && v.Tgt.Arch.String() != "sm_90a" }},
		{Rule: seedRule(md.Name, "layout-004", seed004LayoutText,
			"seed 004, nvgpu.warpgroup.descriptor (bit layout of the shl/or chain, read least significant field first)",
			"ptx-facts: wgmma has LBO at 16-29, SBO at 32-45, base offset at 49-51 and swizzle at 62-63; tcgen05 adds "+
				"0b001 at 46-48 and a 3-bit swizzle at 61-63. Seed 004 puts LBO at 14, SBO at 30, base offset at 46 and a 2-bit "+
				"swizzle at 52, so its words differ from PTX's; this rule fires where the 2-bit field cannot hold the swizzle value"),
			Fires:  func(v md.Value) bool { return v.Swizzle > 3 },
			Detail: func(v md.Value) string { return fmt.Sprintf(": swizzle_mode %d does not fit 2 bits", v.Swizzle) }},
	},
}

// belowSM90a is "below the sm_90a floor": targets order by SM number, and
// within one number "" and "f" sort below "a".
func belowSM90a(v md.Value) bool {
	a := v.Tgt.Arch
	return a.SM < 90 || (a.SM == 90 && !a.ArchSpecific())
}

// checkMatDescLayouts round-trips every field through both bit layouts on
// its own: the PTX layout of the value's format (both directions) and seed
// 004's. Where the two layouts put the same fields at different bits, the
// words differ; that is data for the campaign, not an error.
func checkMatDescLayouts(val md.Value) error {
	raw := val.Raw()
	back := md.FromRaw(val.Format, raw, val.Uniform, val.Tgt)
	want := val
	want.StartAddr = uint32(md.DescriptorEncode(val.StartAddr)) << 4
	want.LBO = uint32(md.DescriptorEncode(val.LBO)) << 4
	want.SBO = uint32(md.DescriptorEncode(val.SBO)) << 4
	if back != want {
		return fmt.Errorf("%v: PTX layout 0x%016x reads back as %+v, want %+v", val, raw, back, want)
	}
	if again := back.Raw(); again != raw {
		return fmt.Errorf("%v: PTX layout 0x%016x repacks as 0x%016x", val, raw, again)
	}
	w := packSeed004(val)
	if got, fields := unpackSeed004(w), seed004Fields(val); got != fields {
		return fmt.Errorf("%v: seed 004 layout 0x%016x reads back as %v, want %v", val, w, got, fields)
	}
	return nil
}
