package rules

import (
	"fmt"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

const ptxBulkTensor = "PTX ISA 9.7.9.27.1.2 (cp.async.bulk.tensor)"

func tmRule(name, msg string) *Rule { return ptxRule(tm.Name, name, msg, ptxBulkTensor) }

// tmBlackwellArch reports whether t can hold the arch-specific Blackwell
// TMA forms: sm_100a, sm_101a, sm_103a, sm_110a, or their f-family from PTX 8.8.
func tmBlackwellArch(t target.Target) bool {
	if archIn(t, "sm_100a", "sm_101a", "sm_103a", "sm_110a") {
		return true
	}
	return archIn(t, "sm_100f", "sm_101f", "sm_103f", "sm_110f") && ptxAtLeast(t, 88)
}

// tmModeAllowed reports whether the direction takes the mode: loads and
// prefetches the tile, gather4 and im2col loads; stores tile, scatter4 and
// im2col_no_offs.
func tmModeAllowed(v tm.Value) bool {
	switch v.Mode {
	case tm.Tile:
		return true
	case tm.Gather4, tm.Im2col, tm.Im2colW, tm.Im2colW128:
		return v.Direction != tm.Store
	case tm.Scatter4, tm.Im2colNoOffs:
		return v.Direction == tm.Store
	}
	return false
}

// tmDstAllowed reports whether the destination fits the direction.
func tmDstAllowed(v tm.Value) bool {
	switch v.Direction {
	case tm.Load:
		return v.Dst == tm.SharedCluster || v.Dst == tm.SharedCTA
	case tm.Store:
		return v.Dst == tm.Global
	}
	return v.Dst == tm.L2
}

// tmGatherWTarget is the target gate of .tile::gather4 and .im2col::w: any
// sm_100+ into .shared::cta, the arch-specific Blackwell targets otherwise.
func tmGatherWTarget(v tm.Value) bool {
	if v.Dst == tm.SharedCTA {
		return v.Tgt.Arch.SM >= 100
	}
	return tmBlackwellArch(v.Tgt)
}

func tmIsGatherScatter(m tm.Mode) bool { return m == tm.Gather4 || m == tm.Scatter4 }

// tmWHaloLimit is the exclusive bound of wHalo: 512 for im2col::w, 32 for ::w::128.
func tmWHaloLimit(m tm.Mode) uint16 {
	if m == tm.Im2colW128 {
		return 32
	}
	return 512
}

// tmamodePTXISA judges the instruction from the PTX ISA; on accept it carries
// the instruction's spelling, oracles/ptx's (the text every PTX tool reads).
var tmamodePTXISA = &Ladder[tm.Value]{Set: PTXISA, Domain: tm.Name,
	Value: ptx.TMAModeInstruction,
	Checks: []Check[tm.Value]{
		targetPTXCheck[tm.Value](tm.Name),
		{Rule: tmRule("base-target", "cp.async.bulk.tensor requires sm_90 and PTX ISA 8.0"),
			Fires: func(v tm.Value) bool { return v.Tgt.Arch.SM < 90 || !ptxAtLeast(v.Tgt, 80) }},
		{Rule: tmRule("mode", "no load or store mode matches this encoding"),
			Fires: func(v tm.Value) bool { return v.Mode == tm.ModeReserved }},
		{Rule: tmRule("dim", ".dim must be .1d to .5d"),
			Fires:  func(v tm.Value) bool { return v.Rank < 1 || v.Rank > 5 },
			Detail: func(v tm.Value) string { return fmt.Sprintf(" (%dd)", v.Rank) }},
		{Rule: tmRule("mode-direction", "loads and prefetches take .tile, .tile::gather4 and the .im2col modes; stores take .tile, .tile::scatter4 and .im2col_no_offs"),
			Fires:  func(v tm.Value) bool { return !tmModeAllowed(v) },
			Detail: func(v tm.Value) string { return " (" + v.Direction.String() + " ." + v.Mode.String() + ")" }},
		{Rule: tmRule("dst-direction", "loads write .shared::cluster or .shared::cta, stores .global (from .shared::cta), prefetches .L2"),
			Fires:  func(v tm.Value) bool { return !tmDstAllowed(v) },
			Detail: func(v tm.Value) string { return " (" + v.Direction.String() + " to ." + v.Dst.String() + ")" }},
		{Rule: tmRule("shared-cta-ptx", "a .shared::cta destination requires PTX ISA 8.6"),
			Fires: func(v tm.Value) bool { return v.Dst == tm.SharedCTA && !ptxAtLeast(v.Tgt, 86) }},
		{Rule: tmRule("im2col-dims", "the .im2col modes require .3d to .5d"),
			Fires: func(v tm.Value) bool { return v.Mode.IsIm2col() && v.Rank < 3 }},
		{Rule: tmRule("gather-scatter-dims", ".tile::gather4 and .tile::scatter4 require .2d"),
			Fires: func(v tm.Value) bool { return tmIsGatherScatter(v.Mode) && v.Rank != 2 }},
		{Rule: tmRule("gather-scatter-box", ".tile::gather4 and .tile::scatter4 require a tensor map with box dim1 == 1"),
			Fires:  func(v tm.Value) bool { return tmIsGatherScatter(v.Mode) && v.BoxDim1 != 1 },
			Detail: func(v tm.Value) string { return fmt.Sprintf(" (box dim1 = %d)", v.BoxDim1) }},
		{Rule: tmRule("gather-scatter-interleave", ".tile::gather4 and .tile::scatter4 require a tensor map without interleave"),
			Fires: func(v tm.Value) bool { return tmIsGatherScatter(v.Mode) && v.Interleave != tm.InterleaveNone }},
		{Rule: tmRule("w-operands", "wHalo and wOffset exist only for .im2col::w and .im2col::w::128"),
			Fires: func(v tm.Value) bool { return !v.Mode.IsW() && (v.WHalo != 0 || v.WOffset != 0) }},
		{Rule: tmRule("w-halo", "wHalo must be below 512 for .im2col::w and below 32 for .im2col::w::128"),
			Fires:  func(v tm.Value) bool { return v.Mode.IsW() && v.WHalo >= tmWHaloLimit(v.Mode) },
			Detail: func(v tm.Value) string { return fmt.Sprintf(" (wHalo = %d)", v.WHalo) }},
		{Rule: tmRule("w-offset", "wOffset must be below 32"),
			Fires:  func(v tm.Value) bool { return v.Mode.IsW() && v.WOffset >= 32 },
			Detail: func(v tm.Value) string { return fmt.Sprintf(" (wOffset = %d)", v.WOffset) }},
		{Rule: tmRule("new-modes-ptx", ".tile::gather4, .tile::scatter4, .im2col::w and .im2col::w::128 require PTX ISA 8.6"),
			Fires: func(v tm.Value) bool {
				return (tmIsGatherScatter(v.Mode) || v.Mode.IsW()) && !ptxAtLeast(v.Tgt, 86)
			}},
		{Rule: tmRule("gather4-w-target", ".tile::gather4 and .im2col::w require sm_100+ into .shared::cta, else sm_100a, sm_101a, sm_103a, sm_110a or their f-family"),
			Fires: func(v tm.Value) bool { return (v.Mode == tm.Gather4 || v.Mode == tm.Im2colW) && !tmGatherWTarget(v) }},
		{Rule: tmRule("scatter4-w128-target", ".tile::scatter4 and .im2col::w::128 require sm_100a, sm_101a, sm_103a, sm_110a or their f-family"),
			Fires: func(v tm.Value) bool {
				return (v.Mode == tm.Scatter4 || v.Mode == tm.Im2colW128) && !tmBlackwellArch(v.Tgt)
			}},
		{Rule: tmRule("multicast", ".multicast::cluster requires a load into .shared::cluster"),
			Fires: func(v tm.Value) bool { return v.Multicast && (v.Direction != tm.Load || v.Dst != tm.SharedCluster) }},
		{Rule: tmRule("cta-group-direction", ".cta_group applies to loads only"),
			Fires: func(v tm.Value) bool { return v.CTAGroup != 0 && v.Direction != tm.Load }},
		{Rule: tmRule("cta-group-ptx", ".cta_group requires PTX ISA 8.6"),
			Fires: func(v tm.Value) bool { return v.CTAGroup != 0 && !ptxAtLeast(v.Tgt, 86) }},
		{Rule: tmRule("cta-group-target", ".cta_group requires sm_100a, sm_101a, sm_103a, sm_110a or their f-family"),
			Fires: func(v tm.Value) bool { return v.CTAGroup != 0 && !tmBlackwellArch(v.Tgt) }},
	},
}
