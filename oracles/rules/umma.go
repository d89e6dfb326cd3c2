package rules

import (
	"fmt"
	"strconv"

	um "github.com/legalfuzz/legalfuzz/fuzz/umma"
)

func init() {
	register(ummaSeed, ummaPTXISA)
	registerSelfCheck(um.Name, checkUMMACosize)
	registerSelfCheck(um.Name, checkUMMAStrideRebuild)
}

const seed001UMMA = "seed 001, UMMA Canonical Layout Verifier"

// elemClass is seed 001's element-size decode: elem_bits to
// (per_lane_count, stride_multiplier).
type elemClass struct {
	// valid is false above 32 bits, the SM100 TMEM rule.
	valid   bool
	perLane uint64
	// strideMul is our reading of the seed's "computed" stride_multiplier:
	// 128/elem_bits, the elements in one 16-byte core-matrix row (T in the
	// PTX canonical layouts). known is false for widths outside the table.
	strideMul int64
	known     bool
}

// decodeElemClass is the seed's table: fp4 gives (4, 8), 8/16/32 bits give
// (8, computed); other widths up to 32 bits leave the stride undefined,
// which "stops later steps from succeeding".
func decodeElemClass(bits uint8) elemClass {
	switch bits {
	case 4:
		return elemClass{valid: true, perLane: 4, strideMul: 8, known: true}
	case 8, 16, 32:
		return elemClass{valid: true, perLane: 8, strideMul: 128 / int64(bits), known: true}
	}
	return elemClass{valid: bits <= 32, perLane: 8}
}

// seedAcceptedSwizzle is is_accepted_swizzle: (0,2,5), (2,5,2) and (n,4,3)
// for n in 0..3. The seed's fourth entry, (2,5,2) with direction UMMA_K, is
// already in the set, so direction changes nothing.
func seedAcceptedSwizzle(s [3]uint8) bool {
	switch s {
	case [3]uint8{0, 2, 5}, [3]uint8{2, 5, 2}:
		return true
	}
	return s[0] <= 3 && s[1] == 4 && s[2] == 3
}

// strideReq is one expected stride of the seed's rebuilt layout: the first
// sub-mode of mode must have stride want (a sub-mode of shape 1 has no
// stride to compare, as in CuTe).
type strideReq struct {
	mode uint8
	want int64
}

// seedStrideReqs is our reading of the seed's rebuilt expected pairs. UMMA_MN:
// "(1-shape, stride_multiplier-stride) / (1-shape, per_lane_count-stride)",
// read as the MN mode's first stride = stride_multiplier and the K mode's
// first stride = per_lane_count. UMMA_K: "(1, per_lane_count) / (2, 1)",
// read as the MN mode's first stride = per_lane_count and the K mode's first
// stride = 1. Shapes are not compared: the seed's step is a stride check.
func seedStrideReqs(v um.Value, ec elemClass) []strideReq {
	if v.Direction == um.DirMN {
		return []strideReq{{v.MNMode, ec.strideMul}, {v.KMode, int64(ec.perLane)}}
	}
	return []strideReq{{v.MNMode, int64(ec.perLane)}, {v.KMode, 1}}
}

// reqHolds is the closed form of one requirement.
func reqHolds(v um.Value, r strideReq) bool {
	m := v.Modes[r.mode]
	return m.Shape[0] == 1 || int64(m.Stride[0]) == r.want
}

// seedStridesMatch is strides_match_expected(layout, ec).
func seedStridesMatch(v um.Value) bool {
	ec := decodeElemClass(v.ElemBits)
	if !ec.known {
		return false
	}
	for _, r := range seedStrideReqs(v, ec) {
		if !reqHolds(v, r) {
			return false
		}
	}
	return true
}

// allFlat is has_flat_offset_mode as the seed's prose defines it: every
// mode has flat-mode storage (is a single integer).
func allFlat(v um.Value) bool {
	for _, m := range v.Modes[:v.Rank] {
		if !m.Flat() {
			return false
		}
	}
	return true
}

// mnKSizeBad is the UMMA_MN K-size check: K_elements must be 256/elem_bits
// or 512/elem_bits (integer division); with elem_bits 0 no extent matches.
func mnKSizeBad(v um.Value) bool {
	if v.ElemBits == 0 {
		return true
	}
	k, eb := v.KSize(), uint64(v.ElemBits)
	return k != 256/eb && k != 512/eb
}

// elemClassName names the accepted element class: fp4, b8, b16, b32.
func elemClassName(bits uint8) string {
	if bits == 4 {
		return "fp4"
	}
	return "b" + strconv.Itoa(int(bits))
}

func seedUMMARule(name, msg, step, doubt string) *Rule {
	return seedRule(um.Name, name, msg, seed001UMMA+", "+step, doubt)
}

const (
	doubtFlat = "the seed's prose requires every mode to be flat (80 bytes of flat-mode storage each) while its function is named " +
		"has_flat_offset_mode (some mode); we follow the prose. The PTX canonical layouts are nested ((8,m),(T,2k)), so they fail here"
	doubtStride = "the seed's expected pairs are vague; our reading: UMMA_MN wants MN stride = stride_multiplier and K stride = " +
		"per_lane_count, UMMA_K wants MN stride = per_lane_count and K stride = 1, on each mode's first sub-mode, with " +
		"stride_multiplier = 128/elem_bits (the seed says only \"computed\"; fp4 gives 8). The PTX canonical layouts put the " +
		"core-matrix row pitch (a multiple of 128/elem_bits) on the strided mode"
	doubtKBranch = "; any direction other than 0 and 1 (\"a bug\" in the seed's words) takes this UMMA_K branch, as the seed's else does"
)

func inMN(v um.Value) bool { return v.Direction == um.DirMN }

// ummaSeed is verify_umma_canonical_layout, its seven diagnostics verbatim
// in the seed's order, plus the silent failure for elements above 32 bits.
// On accept it carries the packed (elem_class, k_size, mn_size).
var ummaSeed = &Ladder[um.Value]{Set: Seed, Domain: um.Name,
	Value: func(v um.Value) string {
		return fmt.Sprintf("elem_class=%s,k=%d,mn=%d", elemClassName(v.ElemBits), v.KSize(), v.MNSize())
	},
	Checks: []Check[um.Value]{
		{Rule: seedUMMARule("unsupported-swizzle", "unsupported swizzle, got ", "step 1",
			"the seed names the triple (swz_mode, B, M) but its values are CuTe's Swizzle<B,M,S>; it calls (2,5,2) the 128-byte swizzle "+
				"(CUTLASS: 128B with 32-byte atoms) and lists it again \"with direction == UMMA_K\", while CUTLASS's make_umma_desc rejects it for K-major"),
			Fires:  func(v um.Value) bool { return !seedAcceptedSwizzle(v.Swizzle) },
			Detail: func(v um.Value) string { return v.Triple() }},
		{Rule: seedUMMARule("elem-width", "(no diagnostic: element width above 32 bits)", "step 3 (return failure(), caller diagnoses)",
			"the seed fails without a diagnostic and leaves it to the caller, so the message here is ours, not the seed's"),
			Fires: func(v um.Value) bool { return !decodeElemClass(v.ElemBits).valid }},
		{Rule: seedUMMARule("mn-k-size",
			"Not a canonical UMMA_MN Layout: Expected K-size 256/sizeof_bits<T> or 512/sizeof_bits(T) in sparse gemm kernels.", "step 5a",
			"the seed accepts the sparse K extent (512 bits) on dense operands too; with elem_bits 0 its division is undefined and we read it as no match"),
			Fires: func(v um.Value) bool { return inMN(v) && mnKSizeBad(v) }},
		{Rule: seedUMMARule("mn-flat", "Not a canonical UMMA_MN Layout: No flat offset mode", "step 5c", doubtFlat),
			Fires: func(v um.Value) bool { return inMN(v) && !allFlat(v) }},
		{Rule: seedUMMARule("mn-stride", "Not a canonical UMMA_MN Layout: Expected stride failure.", "step 5d", doubtStride),
			Fires: func(v um.Value) bool { return inMN(v) && !seedStridesMatch(v) }},
		{Rule: seedUMMARule("k-mn-size", "Not a canonical UMMA_K Layout: Expected MN-size multiple of ", "step 6a",
			"fp4's per_lane_count of 4 differs from CUTLASS's fixed multiple of 8 rows"+doubtKBranch),
			Fires: func(v um.Value) bool {
				return !inMN(v) && v.MNSize()%decodeElemClass(v.ElemBits).perLane != 0
			},
			Detail: func(v um.Value) string { return strconv.FormatUint(decodeElemClass(v.ElemBits).perLane, 10) + "." }},
		{Rule: seedUMMARule("k-flat", "Not a canonical UMMA_K Layout: No flat offset mode", "step 6b", doubtFlat+doubtKBranch),
			Fires: func(v um.Value) bool { return !inMN(v) && !allFlat(v) }},
		{Rule: seedUMMARule("k-stride", "Not a canonical UMMA_K Layout: Expected stride failure.", "step 6c", doubtStride+doubtKBranch),
			Fires: func(v um.Value) bool { return !inMN(v) && !seedStridesMatch(v) }},
	},
}

// enumerationLimit bounds the coordinates a self-check enumerates.
const enumerationLimit = 1 << 14

// checkUMMACosize compares the closed-form cosize with the largest offset
// over every coordinate of the layout, plus one.
func checkUMMACosize(val um.Value) error {
	size := val.Size()
	if size > enumerationLimit {
		return nil
	}
	best := int64(0)
	for i := range size {
		off, rest := int64(0), i
		for _, m := range val.Modes[:val.Rank] {
			n := m.Size()
			off += m.Offset(rest % n)
			rest /= n
		}
		best = max(best, off)
	}
	if got := val.Cosize(); got != best+1 {
		return fmt.Errorf("%v: closed-form cosize %d, enumeration %d", val, got, best+1)
	}
	return nil
}

// checkUMMAStrideRebuild checks each closed-form stride requirement against
// an enumeration: the rebuilt mode (the first stride replaced by the
// expected one) must give the same offset as the layout's mode at every
// coordinate exactly when the requirement holds.
func checkUMMAStrideRebuild(val um.Value) error {
	ec := decodeElemClass(val.ElemBits)
	if !ec.known {
		return nil
	}
	for _, r := range seedStrideReqs(val, ec) {
		m := val.Modes[r.mode]
		if m.Size() > enumerationLimit {
			continue
		}
		rebuilt := m
		rebuilt.Stride[0] = int32(r.want)
		same := true
		for i := range m.Size() {
			same = same && m.Offset(i) == rebuilt.Offset(i)
		}
		if same != reqHolds(val, r) {
			return fmt.Errorf("%v: mode %d stride requirement %d: closed form %v, enumeration %v", val, r.mode, r.want, reqHolds(val, r), same)
		}
	}
	return nil
}
