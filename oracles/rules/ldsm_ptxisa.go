package rules

import (
	"fmt"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

const (
	ptxLdmatrix = "PTX ISA 9.7.14.5.15 (ldmatrix)"
	ptxStmatrix = "PTX ISA 9.7.14.5.16 (stmatrix)"
	ptxLdStm    = "PTX ISA 9.7.14.5.15-16 (ldmatrix, stmatrix)"
)

func ldsmRule(name, msg, source string) *Rule { return ptxRule(ldsm.Name, name, msg, source) }

// ldsmTypes is the .type (or .dst_fmt.src_fmt) each PTX shape takes.
var ldsmTypes = map[ldsm.Shape][]ldsm.Size{
	ldsm.M8N8:   {ldsm.B16},
	ldsm.M16N16: {ldsm.B8, ldsm.B6P32, ldsm.B4P64},
	ldsm.M8N16:  {ldsm.B6P32, ldsm.B4P64},
	ldsm.M16N8:  {ldsm.B8},
}

// ldsmPTXType is the PTX .type a size pattern stands for, read past its
// spelling (the seed's u16 is .b16); ok is false for the patterns PTX has
// no form of. So each rule judges one fact of a case: type-spelling the
// spelling, type-no-ptx-form the pattern, shape-type only the width, and a
// case with one wrong fact breaks one rule.
func ldsmPTXType(s ldsm.Size) (ldsm.Size, bool) {
	switch s {
	case ldsm.U16:
		return ldsm.B16, true
	case ldsm.U8:
		return ldsm.B8, true
	case ldsm.B16, ldsm.B8, ldsm.B6P32, ldsm.B4P64:
		return s, true
	}
	return s, false
}

// ldsmNewForm reports whether v uses a shape added in PTX ISA 8.6 (.m16n16,
// .m8n16, stmatrix .m16n8; their .b8 / .b8x16 types come with them).
func ldsmNewForm(v ldsm.Value) bool { return v.Shape != ldsm.M8N8 }

// ldsmNewFormTarget reports whether t has the PTX 8.6 forms: an
// arch-specific Blackwell target (sm_100a, sm_101a, sm_103a, sm_110a,
// sm_120a), or an f-family one from PTX 8.8.
func ldsmNewFormTarget(t target.Target) bool {
	if t.Arch.SM < 100 {
		return false
	}
	return t.Arch.ArchSpecific() || (t.Arch.FamilySpecific() && ptxAtLeast(t, 88))
}

// ldsmPTXISA judges the instruction from the PTX ISA. The PTX 6.5 / sm_75
// gate of ldmatrix .m8n8 is not a rule: every target legalfuzz knows is
// sm_80 or later and needs PTX 7.0, which target-ptx-version checks.
var ldsmPTXISA = &Ladder[ldsm.Value]{Set: PTXISA, Domain: ldsm.Name,
	Value:  ldsmMnemonic,
	Checks: append(ldsmFormChecks(), ldsmGateChecks()...),
}

// ldsmFormChecks are the instruction's spelling: spaces, shape, .num,
// .trans and .type.
func ldsmFormChecks() []Check[ldsm.Value] {
	load := func(v ldsm.Value) bool { return v.Op == ldsm.Load }
	shapeDetail := func(v ldsm.Value) string { return ": ." + v.Shape.String() }
	return []Check[ldsm.Value]{
		targetPTXCheck[ldsm.Value](ldsm.Name),
		{Rule: ldsmRule("ldmatrix-spaces", "ldmatrix loads from .shared into registers", ptxLdmatrix),
			Fires: func(v ldsm.Value) bool { return load(v) && (v.Src != ldsm.Shared || v.Dst != ldsm.Register) }},
		{Rule: ldsmRule("stmatrix-spaces", "stmatrix stores from registers into .shared", ptxStmatrix),
			Fires: func(v ldsm.Value) bool { return !load(v) && (v.Src != ldsm.Register || v.Dst != ldsm.Shared) }},
		{Rule: ldsmRule("ldmatrix-shape", "ldmatrix .shape must be .m8n8, .m16n16 or .m8n16", ptxLdmatrix), Detail: shapeDetail,
			Fires: func(v ldsm.Value) bool {
				return load(v) && !slices.Contains([]ldsm.Shape{ldsm.M8N8, ldsm.M16N16, ldsm.M8N16}, v.Shape)
			}},
		{Rule: ldsmRule("stmatrix-shape", "stmatrix .shape must be .m8n8 or .m16n8", ptxStmatrix), Detail: shapeDetail,
			Fires: func(v ldsm.Value) bool { return !load(v) && v.Shape != ldsm.M8N8 && v.Shape != ldsm.M16N8 }},
		{Rule: ldsmRule("num", ".num must be .x1, .x2 or .x4", ptxLdStm),
			Detail: func(v ldsm.Value) string { return fmt.Sprintf(": %d matrices", v.NumMatrices) },
			Fires:  func(v ldsm.Value) bool { return v.NumMatrices != 1 && v.NumMatrices != 2 && v.NumMatrices != 4 }},
		{Rule: ldsmRule("m16n16-num", "ldmatrix .m16n16 allows only .x1 and .x2", ptxLdmatrix),
			Fires: func(v ldsm.Value) bool { return v.Shape == ldsm.M16N16 && v.NumMatrices == 4 }},
		{Rule: ldsmRule("trans-mandatory", ".trans is mandatory for ldmatrix .m16n16 and stmatrix .m16n8", ptxLdStm),
			Fires: func(v ldsm.Value) bool { return (v.Shape == ldsm.M16N16 || v.Shape == ldsm.M16N8) && !v.Transpose }},
		{Rule: ldsmRule("m8n16-trans", "ldmatrix .m8n16 takes no .trans", ptxLdmatrix),
			Fires: func(v ldsm.Value) bool { return v.Shape == ldsm.M8N16 && v.Transpose }},
		{Rule: ldsmRule("type-spelling", "PTX spells the element type .b16 or .b8, not u16 or u8", ptxLdStm),
			Fires: func(v ldsm.Value) bool { return v.Size == ldsm.U16 || v.Size == ldsm.U8 }},
		{Rule: ldsmRule("type-no-ptx-form", "no PTX format: sub-byte sources are only unsigned 6- or 4-bit (.b8x16.b6x16_p32, .b8x16.b4x16_p64)", ptxLdmatrix),
			Detail: func(v ldsm.Value) string { return ": " + v.Size.String() },
			Fires: func(v ldsm.Value) bool {
				return slices.Contains([]ldsm.Size{ldsm.U4to8, ldsm.S4to8, ldsm.U2to4, ldsm.S2to4, ldsm.SizeReserved}, v.Size)
			}},
		{Rule: ldsmRule("shape-type", "the .type does not fit the .shape (.m8n8: .b16; .m16n16: .b8 or .b8x16.*; .m8n16: .b8x16.*; .m16n8: .b8)", ptxLdStm),
			Detail: func(v ldsm.Value) string { return ": ." + v.Shape.String() + " ." + v.Size.String() },
			Fires: func(v ldsm.Value) bool {
				s, ok := ldsmPTXType(v.Size)
				return ok && !slices.Contains(ldsmTypes[v.Shape], s)
			}},
	}
}

// ldsmGateChecks are the PTX version and target gates, then the operands:
// result fragment, registers, alignment.
func ldsmGateChecks() []Check[ldsm.Value] {
	store := func(v ldsm.Value) bool { return v.Op == ldsm.Store }
	return []Check[ldsm.Value]{
		{Rule: ldsmRule("stmatrix-ptx", "stmatrix requires PTX ISA 7.8", ptxStmatrix),
			Fires: func(v ldsm.Value) bool { return store(v) && !ptxAtLeast(v.Tgt, 78) }},
		{Rule: ldsmRule("stmatrix-target", "stmatrix requires sm_90 or later", ptxStmatrix),
			Fires: func(v ldsm.Value) bool { return store(v) && v.Tgt.Arch.SM < 90 }},
		{Rule: ldsmRule("new-forms-ptx", ".m16n16, .m8n16, .m16n8 and their .b8/.b8x16 types require PTX ISA 8.6", ptxLdStm),
			Fires: func(v ldsm.Value) bool { return ldsmNewForm(v) && !ptxAtLeast(v.Tgt, 86) }},
		{Rule: ldsmRule("new-forms-target", ".m16n16, .m8n16 and .m16n8 require sm_100a, sm_101a, sm_103a, sm_110a or sm_120a, or an f-family target from PTX 8.8", ptxLdStm),
			Detail: func(v ldsm.Value) string { return ": " + v.Tgt.String() },
			Fires:  func(v ldsm.Value) bool { return ldsmNewForm(v) && !ldsmNewFormTarget(v.Tgt) }},
		{Rule: ldsmRule("result-shape", "each lane's fragment is one rank-1 vector of rows × cols × .num / 32 elements", ptxLdStm+", fragment figures"),
			Detail: func(v ldsm.Value) string {
				return fmt.Sprintf(": want [%d]", ldsm.ElementsPerLane(v.Shape, int(v.NumMatrices)))
			},
			Fires: func(v ldsm.Value) bool {
				return v.ResultRank != 1 || int(v.ResultDim0) != ldsm.ElementsPerLane(v.Shape, int(v.NumMatrices))
			}},
		{Rule: ldsmRule("register-count", "the register vector must hold one 32-bit register per matrix (two for .m16n16)", ptxLdStm),
			Detail: func(v ldsm.Value) string {
				return fmt.Sprintf(": want %d", ldsm.RegistersPerLane(v.Shape, int(v.NumMatrices)))
			},
			Fires: func(v ldsm.Value) bool {
				return int(v.RegisterCount) != ldsm.RegistersPerLane(v.Shape, int(v.NumMatrices))
			}},
		{Rule: ldsmRule("fragment-cosize", "the register layout must cover exactly the destination registers (cosize == register count)", ptxLdStm),
			Fires: func(v ldsm.Value) bool { return v.Cosize != v.RegisterCount }},
		{Rule: ldsmRule("alignment", "each row address must be 16-byte aligned", ptxLdStm+" (naturally aligned 16-byte rows)"),
			Fires: func(v ldsm.Value) bool { return v.Align%16 != 0 }},
	}
}

// ldsmMnemonic spells the accepted instruction and its register count, e.g.
// "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16;regs=4".
func ldsmMnemonic(v ldsm.Value) string {
	s := fmt.Sprintf("%s.sync.aligned.%s.x%d", v.Op, v.Shape, v.NumMatrices)
	if v.Transpose {
		s += ".trans"
	}
	return fmt.Sprintf("%s.shared.%s;regs=%d", s, v.Size, v.RegisterCount)
}
