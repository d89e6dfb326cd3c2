package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

func init() { register(ldsmSeed, ldsmPTXISA) }

// seedLDSMMode is one row of seed 001's LDSM/STSM table.
type seedLDSMMode struct {
	rows, cols int
	nums       []int // the table's num_matrices column
	sizes      []ldsm.Size
	transpose  bool
}

// seedLDSMModes is the table; ModeReserved has no row (no sizes, no
// counts, transpose not required). "Packed 4/6-bit to 8-bit modes" are
// .b8x16.b6x16_p32 and .b8x16.b4x16_p64.
var seedLDSMModes = [...]seedLDSMMode{
	ldsm.M88:          {8, 8, []int{1, 2, 4}, []ldsm.Size{ldsm.U16}, false},
	ldsm.MT88:         {8, 8, []int{1, 2, 4}, []ldsm.Size{ldsm.U16}, true},
	ldsm.M816:         {8, 16, []int{1, 2, 4}, []ldsm.Size{ldsm.U4to8, ldsm.S4to8, ldsm.B6P32, ldsm.B4P64}, false},
	ldsm.M832:         {8, 32, []int{1, 2, 4}, []ldsm.Size{ldsm.U2to4, ldsm.S2to4}, false},
	ldsm.MT1616:       {16, 16, []int{1, 2}, []ldsm.Size{ldsm.U8, ldsm.B6P32, ldsm.B4P64}, true},
	ldsm.ModeReserved: {},
}

// ldsmModeRow is mode's table row; a mode outside the table has none.
func ldsmModeRow(m ldsm.Mode) seedLDSMMode {
	if int(m) < len(seedLDSMModes) {
		return seedLDSMModes[m]
	}
	return seedLDSMMode{}
}

// fragmentPerMatrix is one matrix's share of a lane: rows × cols / 32.
func (m seedLDSMMode) fragmentPerMatrix() int { return m.rows * m.cols / 32 }

// expectedLDSMExtent is our reading of the seed's expected_ldsm_extent(mode,
// num_matrices), which the seed never defines: the elements each lane
// receives, rows × cols × num_matrices / 32 lanes, from the mode's table
// row. In bits that is extent × the mode's element width, and in 32-bit
// registers ldsm.RegistersPerLane.
func expectedLDSMExtent(mode ldsm.Mode, num int) int {
	return ldsmModeRow(mode).fragmentPerMatrix() * num
}

// fragmentShapeMatchesMode is our reading of the seed's undefined
// fragment_shape_matches_mode(op.mode, op.result_shape): a rank-1 result
// made of whole per-matrix fragments, as many as the table's num_matrices
// column allows for the mode. It is the only place the column's "1, 2" for
// .MT1616 can apply, since verify_ldsm_mode admits 4 for every mode.
func fragmentShapeMatchesMode(v ldsm.Value) bool {
	m := ldsmModeRow(v.Mode)
	per := m.fragmentPerMatrix()
	if v.ResultRank != 1 || per == 0 || int(v.ResultDim0)%per != 0 {
		return false
	}
	return slices.Contains(m.nums, int(v.ResultDim0)/per)
}

// ldsmAtomAlign is the alignment we take for the seed's undefined
// pointer_alignment_meets_atom_requirement: 16 bytes, one row address
// (eight b16 elements; PTX: "naturally aligned" 16-byte rows).
const ldsmAtomAlign = 16

const (
	seed001LDSM     = "seed 001, LDSM and STSM Matrix (verify_ldsm_mode)"
	seed001Copy     = "seed 001, Shared-Memory Matrix Movement (verify_matrix_space_copy)"
	seed001Fragment = "seed 001, Shared-Memory Matrix Movement (verify_register_fragment)"

	doubtLDSMTable = "ptx-facts claim 8: .m8n32 and u2to4/s2to4 do not exist in PTX; .m8n16 takes only unsigned 6/4-bit sources (no s4to8); " +
		"PTX spells .b16/.b8, not u16/u8; stmatrix .m16n8 has no mode"
	doubtLDSMNum = "seed contradicts itself: its table lists only 1 and 2 matrices for .MT1616 (PTX: .m16n16 takes .x1/.x2), " +
		"but this require admits 4 for every mode"
)

func ldsmSeedRule(name, msg, source, doubt string) *Rule {
	return seedRule(ldsm.Name, name, msg, source, doubt)
}

// ldsmSeed is seed 001's three verifiers as one fail-first ladder, in the
// order the seed gives them (verify_ldsm_mode, verify_matrix_space_copy,
// verify_register_fragment), messages the require(...) text verbatim. On
// accept it carries the expected extent.
var ldsmSeed = &Ladder[ldsm.Value]{Set: Seed, Domain: ldsm.Name,
	Value: func(v ldsm.Value) string {
		return "extent=" + strconv.Itoa(expectedLDSMExtent(v.Mode, int(v.NumMatrices)))
	},
	Checks: append(ldsmModeChecks(), ldsmCopyChecks()...),
}

// ldsmModeChecks is verify_ldsm_mode.
func ldsmModeChecks() []Check[ldsm.Value] {
	return []Check[ldsm.Value]{
		{Rule: ldsmSeedRule("num-matrices", "require(num_matrices == 1 || num_matrices == 2 || num_matrices == 4)", seed001LDSM, doubtLDSMNum),
			Fires: func(v ldsm.Value) bool { return v.NumMatrices != 1 && v.NumMatrices != 2 && v.NumMatrices != 4 }},
		{Rule: ldsmSeedRule("transpose", "require(transpose == mode.requires_transpose)", seed001LDSM,
			"the reserved mode (no table row) is read as not requiring .trans; PTX makes .trans optional for .m8n8, the seed splits it into .M88/.MT88"),
			Fires: func(v ldsm.Value) bool { return v.Transpose != ldsmModeRow(v.Mode).transpose }},
		{Rule: ldsmSeedRule("size", "require(size in mode.accepted_sizes)", seed001LDSM, doubtLDSMTable),
			Fires: func(v ldsm.Value) bool { return !slices.Contains(ldsmModeRow(v.Mode).sizes, v.Size) }},
		{Rule: ldsmSeedRule("result-rank", "require(result_shape.rank == 1)", seed001LDSM, ""),
			Fires: func(v ldsm.Value) bool { return v.ResultRank != 1 }},
		{Rule: ldsmSeedRule("result-extent", "require(result_shape.dim(0) == expected_ldsm_extent(mode, num_matrices))", seed001LDSM,
			"the seed never defines expected_ldsm_extent; our reading: elements per lane = rows × cols × num_matrices / 32 from the mode's table row"),
			Fires: func(v ldsm.Value) bool {
				return int(v.ResultDim0) != expectedLDSMExtent(v.Mode, int(v.NumMatrices))
			}},
	}
}

// ldsmCopyChecks is verify_matrix_space_copy then verify_register_fragment.
func ldsmCopyChecks() []Check[ldsm.Value] {
	load := func(v ldsm.Value) bool { return v.Op == ldsm.Load }
	return []Check[ldsm.Value]{
		{Rule: ldsmSeedRule("load-src-space", "require(op.src.memory_space == SHARED_MEMORY)", seed001Copy, ""),
			Fires: func(v ldsm.Value) bool { return load(v) && v.Src != ldsm.Shared }},
		{Rule: ldsmSeedRule("load-dst-space", "require(op.dst.memory_space == REGISTER_MEMORY)", seed001Copy, ""),
			Fires: func(v ldsm.Value) bool { return load(v) && v.Dst != ldsm.Register }},
		{Rule: ldsmSeedRule("store-src-space", "require(op.src.memory_space == REGISTER_MEMORY)", seed001Copy, ""),
			Fires: func(v ldsm.Value) bool { return !load(v) && v.Src != ldsm.Register }},
		{Rule: ldsmSeedRule("store-dst-space", "require(op.dst.memory_space == SHARED_MEMORY)", seed001Copy, ""),
			Fires: func(v ldsm.Value) bool { return !load(v) && v.Dst != ldsm.Shared }},
		{Rule: ldsmSeedRule("fragment-shape", "require(fragment_shape_matches_mode(op.mode, op.result_shape))", seed001Copy,
			"the seed never defines fragment_shape_matches_mode; our reading applies the table's num_matrices column, "+
				"so it fires only for .MT1616 with 4 matrices, which verify_ldsm_mode lets through"),
			Fires: func(v ldsm.Value) bool { return !fragmentShapeMatchesMode(v) }},
		{Rule: ldsmSeedRule("alignment", "require(pointer_alignment_meets_atom_requirement(op.shared_operand))", seed001Copy,
			"the seed never states the atom's requirement; we take 16 bytes, one row address"),
			Fires: func(v ldsm.Value) bool { return v.Align%ldsmAtomAlign != 0 }},
		{Rule: ldsmSeedRule("register-bits", "require(actual_bits == expected_bits)", seed001Fragment,
			"the seed compares the register count with the layout's cosize only, never with what the mode moves"),
			Fires: func(v ldsm.Value) bool { return 32*int(v.Cosize) != 32*int(v.RegisterCount) }},
	}
}

func init() { registerSelfCheck(ldsm.Name, checkLDSMFragment) }

// ldsmFragment is what enumerating one warp-wide fragment found.
type ldsmFragment struct {
	elemsPerLane, regsPerLane int
	err                       error
}

// ldsmFragments caches the enumeration of every (shape, num) once.
var ldsmFragments = func() (f [ldsm.M8N32 + 1][ldsm.MaxNum + 1]ldsmFragment) {
	for s := range f {
		for n := 1; n <= ldsm.MaxNum; n++ {
			f[s][n] = enumerateFragment(ldsm.Shape(s), n)
		}
	}
	return f
}()

// enumerateFragment lays num row-major matrices of shape s into lanes as
// the PTX fragment figures do (consecutive 32-bit chunks of a matrix go to
// consecutive lanes, one register per 32 chunks) and counts what each lane
// holds: its elements and the cosize of its register layout.
func enumerateFragment(s ldsm.Shape, num int) ldsmFragment {
	rows, cols := s.Dims()
	bits := s.ElemBits()
	regsPerMatrix := 0 // one matrix's registers per lane, counted
	for e := range rows * cols {
		regsPerMatrix = max(regsPerMatrix, e*bits/32/32+1)
	}
	var elems [32]int
	var regs [32]map[int]bool
	for m := range num {
		for e := range rows * cols {
			chunk := e * bits / 32
			lane, reg := chunk%32, m*regsPerMatrix+chunk/32
			elems[lane]++
			if regs[lane] == nil {
				regs[lane] = map[int]bool{}
			}
			regs[lane][reg] = true
		}
	}
	f := ldsmFragment{elemsPerLane: elems[0], regsPerLane: len(regs[0])}
	for lane := range 32 {
		cosize := 0
		for r := range regs[lane] {
			cosize = max(cosize, r+1)
		}
		if elems[lane] != f.elemsPerLane || len(regs[lane]) != f.regsPerLane || cosize != f.regsPerLane {
			f.err = fmt.Errorf("%s x%d: lane %d holds %d elements in %d registers (cosize %d), lane 0 %d in %d",
				s, num, lane, elems[lane], len(regs[lane]), cosize, f.elemsPerLane, f.regsPerLane)
		}
	}
	return f
}

// checkLDSMFragment compares the closed forms both rule sets use (the
// seed's extent, ldsm.ElementsPerLane, ldsm.RegistersPerLane) with the
// enumerated fragment of the value's shape and count.
func checkLDSMFragment(val ldsm.Value) error {
	n := int(val.NumMatrices)
	if n == 0 || n > ldsm.MaxNum || int(val.Shape) >= len(ldsmFragments) {
		return nil
	}
	f := ldsmFragments[val.Shape][n]
	if f.err != nil {
		return f.err
	}
	if got := ldsm.ElementsPerLane(val.Shape, n); got != f.elemsPerLane {
		return fmt.Errorf("%s x%d: ElementsPerLane %d, enumeration %d", val.Shape, n, got, f.elemsPerLane)
	}
	if got := ldsm.RegistersPerLane(val.Shape, n); got != f.regsPerLane {
		return fmt.Errorf("%s x%d: RegistersPerLane %d, enumerated cosize %d", val.Shape, n, got, f.regsPerLane)
	}
	if val.Mode != ldsm.ModeReserved {
		if got := expectedLDSMExtent(val.Mode, n); got != f.elemsPerLane {
			return fmt.Errorf("%s x%d: expected_ldsm_extent %d, enumeration %d", val.Mode, n, got, f.elemsPerLane)
		}
	}
	return nil
}
