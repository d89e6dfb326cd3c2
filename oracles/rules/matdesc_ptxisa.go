package rules

import (
	"fmt"
	"strings"

	md "github.com/legalfuzz/legalfuzz/fuzz/matdesc"
)

const (
	ptxWGMMADesc   = "PTX ISA 9.7.15.5.1.2.2 (wgmma matrix descriptor format)"
	ptxTcgen05Desc = "PTX ISA 9.7.16.4.1 (tcgen05 shared memory descriptor)"
	ptxBothDesc    = "PTX ISA 9.7.15.5.1.2.2 and 9.7.16.4.1 (matrix descriptor layouts)"
)

func mdRule(name, msg, source string) *Rule { return ptxRule(md.Name, name, msg, source) }

// byteFields names the start address, LBO and SBO that match bad.
func byteFields(v md.Value, bad func(uint32) bool) string {
	var names []string
	for _, f := range []struct {
		name string
		x    uint32
	}{{"start address", v.StartAddr}, {"LBO", v.LBO}, {"SBO", v.SBO}} {
		if bad(f.x) {
			names = append(names, fmt.Sprintf("%s 0x%x", f.name, f.x))
		}
	}
	return ": " + strings.Join(names, ", ")
}

func isTcgen05(v md.Value) bool { return v.Format == md.TCGen05 }

// matdescPTXISA judges the descriptor from the PTX ISA layouts of its
// format; on accept it carries the packed word.
var matdescPTXISA = &Ladder[md.Value]{Set: PTXISA, Domain: md.Name,
	Value: func(v md.Value) string { return fmt.Sprintf("0x%016x", v.Raw()) },
	Checks: []Check[md.Value]{
		targetPTXCheck[md.Value](md.Name),
		{Rule: mdRule("wgmma-target", "wgmma matrix descriptors require sm_90a", ptxWGMMADesc+"; wgmma.mma_async target notes"),
			Fires: func(v md.Value) bool { return v.Format == md.WGMMA && !archIn(v.Tgt, "sm_90a") }},
		{Rule: mdRule("tcgen05-target",
			"tcgen05 shared memory descriptors require sm_100a, sm_101a, sm_103a or sm_110a, or an f-family target from PTX 8.8",
			ptxTcgen05Desc+"; tcgen05 target notes"),
			Fires: func(v md.Value) bool { return isTcgen05(v) && !tcgen05Target(v.Tgt) }},
		{Rule: mdRule("field-range", "matrix-descriptor-encode keeps bits 4-17: start address, LBO and SBO must be below 2^18", ptxBothDesc),
			Fires:  tooWide,
			Detail: func(v md.Value) string { return byteFields(v, func(x uint32) bool { return x&^0x3FFFF != 0 }) }},
		{Rule: mdRule("alignment", "matrix start address, LBO and SBO must be 16-byte aligned", ptxBothDesc),
			Fires:  misaligned,
			Detail: func(v md.Value) string { return byteFields(v, func(x uint32) bool { return x&15 != 0 }) }},
		{Rule: mdRule("swizzle-invalid", "tcgen05 swizzle mode values 3, 5 and 7 are invalid", ptxTcgen05Desc),
			Fires: func(v md.Value) bool { return isTcgen05(v) && (v.Swizzle == 3 || v.Swizzle == 5 || v.Swizzle == 7) }},
		{Rule: mdRule("fixed-46-48", "tcgen05 descriptor bits 46-48 must hold the fixed value 0b001", ptxTcgen05Desc),
			Fires: func(v md.Value) bool { return isTcgen05(v) && v.Fixed46 != 1 }},
		{Rule: mdRule("fixed-53-60", "tcgen05 descriptor bits 53-60 must be zero", ptxTcgen05Desc),
			Fires: func(v md.Value) bool { return isTcgen05(v) && v.Fixed53 != 0 }},
		{Rule: mdRule("reserved", "descriptor bits outside the listed fields are reserved and must be zero", ptxBothDesc),
			Fires:  func(v md.Value) bool { return v.Reserved != 0 },
			Detail: func(v md.Value) string { return fmt.Sprintf(": 0x%016x", v.Reserved) }},
		{Rule: mdRule("lbo-mode-target", "the absolute leading-dimension address mode (bit 52) requires sm_103a",
			ptxTcgen05Desc+" target ISA note"),
			Fires: func(v md.Value) bool { return isTcgen05(v) && v.LBOMode && !archIn(v.Tgt, "sm_103a") }},
		{Rule: mdRule("base-offset-no-swizzle", "the wgmma matrix base offset is not valid in the no-swizzle mode", ptxWGMMADesc),
			Fires: func(v md.Value) bool { return v.Format == md.WGMMA && v.Swizzle == 0 && v.BaseOffset != 0 }},
		{Rule: mdRule("uniform", "wgmma matrix descriptor contents must be identical across the warps of the warpgroup", ptxWGMMADesc),
			Fires: func(v md.Value) bool { return v.Format == md.WGMMA && !v.Uniform }},
	},
}
