package rules

import (
	"fmt"

	um "github.com/legalfuzz/legalfuzz/fuzz/umma"
)

const (
	ptxUMMALayouts = "PTX ISA 9.7.16.4.1 and its canonical layouts (8-row core matrices of 16-byte rows, " +
		"K-major ((8,m),(T,2k)) and MN-major ((T,s,m),(8,k)) in CuTe notation, T = 128/elem_bits)"
	ptxUMMAKinds = "PTX ISA 9.7.16.10.9 (tcgen05.mma kinds: f16 16, tf32 32, f8f6f4/i8/mxf8f6f4 8, mxf4/mxf4nvf4 packed 4 bits)"
)

// ummaSwizzle is the descriptor swizzle mode a triple names, with atom, the
// 16-byte chunks in one swizzle row (1 for none).
type ummaSwizzle struct {
	name string
	atom int64
}

// ptxUMMASwizzle maps a CuTe triple to the tcgen05 descriptor mode it names:
// any Swizzle<0,M,S> is the identity (none); <1,4,3>, <2,4,3>, <3,4,3> are
// 32B, 64B, 128B; <2,5,2> is 128B with 32-byte atoms.
func ptxUMMASwizzle(s [3]uint8) (ummaSwizzle, bool) {
	b, m, sh := s[0], s[1], s[2]
	switch {
	case b == 0:
		return ummaSwizzle{"none", 1}, true
	case m == 4 && sh == 3 && b <= 3:
		return ummaSwizzle{[]string{"", "32B", "64B", "128B"}[b], 1 << b}, true
	case b == 2 && m == 5 && sh == 2:
		return ummaSwizzle{"128B_base32B", 8}, true
	}
	return ummaSwizzle{}, false
}

// coreRow is T, the elements in one 16-byte core-matrix row.
func coreRow(v um.Value) int64 { return 128 / int64(v.ElemBits) }

// contigAndRows returns the mode that runs along the 16-byte rows (K for
// K-major, MN for MN-major) and the mode that steps across the 8 rows.
func contigAndRows(v um.Value) (contig, rows uint8) {
	if v.Direction == um.DirMN {
		return v.MNMode, v.KMode
	}
	return v.KMode, v.MNMode
}

// rowElems is the elements one swizzle row keeps contiguous: T without
// swizzle, atom*T with it. For 128B with 32-byte atoms the PTX facts at hand
// give no canonical form, so only the 16-byte row (T) is checked.
func rowElems(v um.Value) int64 {
	sw, _ := ptxUMMASwizzle(v.Swizzle)
	if sw.name == "128B_base32B" {
		return coreRow(v)
	}
	return sw.atom * coreRow(v)
}

// contiguousBad reports whether the contiguous mode fails to hold at least
// one 16-byte row with its first min(size, rowElems) elements at offsets
// 0, 1, 2, ...
func contiguousBad(v um.Value) bool {
	c, _ := contigAndRows(v)
	m := v.Modes[c]
	if m.Size() < uint64(coreRow(v)) {
		return true
	}
	for i := range min(m.Size(), uint64(rowElems(v))) {
		if m.Offset(i) != int64(i) {
			return true
		}
	}
	return false
}

// rowsBad reports whether the strided mode fails to step across the 8 rows
// of a core matrix at the swizzle row pitch.
func rowsBad(v um.Value) bool {
	if sw, _ := ptxUMMASwizzle(v.Swizzle); sw.name == "128B_base32B" {
		return false
	}
	_, r := contigAndRows(v)
	m := v.Modes[r]
	if m.Size() < 8 {
		return true
	}
	for i := range uint64(8) {
		if m.Offset(i) != int64(i)*rowElems(v) {
			return true
		}
	}
	return false
}

// freeStrides calls f with every stride that the descriptor's LBO and SBO
// (or a fixed multiple of T) must express: each sub-mode of extent > 1 except
// the unit-stride start of the contiguous mode.
func freeStrides(v um.Value, f func(stride int64) bool) bool {
	c, _ := contigAndRows(v)
	for i, m := range v.Modes[:v.Rank] {
		skipFirst := uint8(i) == c
		for s := range m.Subs {
			if m.Shape[s] == 1 {
				continue
			}
			if skipFirst {
				skipFirst = false
				continue
			}
			if f(int64(m.Stride[s])) {
				return true
			}
		}
	}
	return false
}

func ummaRule(name, msg, source string) *Rule { return ptxRule(um.Name, name, msg, source) }

// ummaPTXISA judges whether a tcgen05 shared memory descriptor can express
// the layout as one MMA operand; on accept it carries the major-ness, the
// swizzle mode, the extents and the bytes the layout spans.
var ummaPTXISA = &Ladder[um.Value]{Set: PTXISA, Domain: um.Name,
	Value: func(v um.Value) string {
		sw, _ := ptxUMMASwizzle(v.Swizzle)
		major := "K"
		if v.Direction == um.DirMN {
			major = "MN"
		}
		bytes := (v.Cosize()*int64(v.ElemBits) + 7) / 8
		return fmt.Sprintf("%s-major swizzle=%s k=%d mn=%d bytes=%d", major, sw.name, v.KSize(), v.MNSize(), bytes)
	},
	Checks: []Check[um.Value]{
		targetPTXCheck[um.Value](um.Name),
		{Rule: ummaRule("target", "UMMA (tcgen05.mma) requires sm_100a, sm_101a, sm_103a or sm_110a, or an f-family target from PTX 8.8",
			"PTX ISA 9.7.16.10.9 target notes"),
			Fires: func(v um.Value) bool { return !tcgen05Target(v.Tgt) }},
		{Rule: ummaRule("direction", "an operand is K-major (0) or MN-major (1)", "PTX ISA 9.7.16.3 (major-ness supported by strides)"),
			Fires: func(v um.Value) bool { return v.Direction != um.DirK && v.Direction != um.DirMN }},
		{Rule: ummaRule("elem-width", "shared-memory operand elements are 4, 8, 16 or 32 bits wide", ptxUMMAKinds),
			Fires: func(v um.Value) bool {
				return v.ElemBits != 4 && v.ElemBits != 8 && v.ElemBits != 16 && v.ElemBits != 32
			}},
		{Rule: ummaRule("swizzle", "the triple names no descriptor swizzle mode (none, 32B, 64B, 128B, 128B with 32-byte atoms)",
			"PTX ISA 9.7.16.4.1 (swizzle modes 0, 1, 2, 4, 6)"),
			Fires:  func(v um.Value) bool { _, ok := ptxUMMASwizzle(v.Swizzle); return !ok },
			Detail: func(v um.Value) string { return ": " + v.Triple() }},
		{Rule: ummaRule("modes", "an operand layout has exactly two modes, MN and K", ptxUMMALayouts),
			Fires: func(v um.Value) bool { return v.Rank != 2 || v.KMode == v.MNMode }},
		{Rule: ummaRule("k-extent", "one MMA reads 32 bytes of K, 64 bytes with sparsity", ptxUMMAKinds+"; K per shape, doubled for .sp"),
			Fires: func(v um.Value) bool {
				want := uint64(256)
				if v.Sparse {
					want = 512
				}
				return v.KSize()*uint64(v.ElemBits) != want
			}},
		{Rule: ummaRule("contiguous", "the leading mode must start with contiguous 16-byte rows (T elements at stride 1, the whole swizzle row when swizzled)", ptxUMMALayouts),
			Fires: contiguousBad},
		{Rule: ummaRule("row-pitch", "the strided mode must step across the 8 rows of a core matrix at the swizzle row pitch", ptxUMMALayouts),
			Fires: rowsBad},
		{Rule: ummaRule("stride-granule", "leading and stride byte offsets must be non-negative multiples of 16 bytes", ptxUMMALayouts),
			Fires: func(v um.Value) bool {
				return freeStrides(v, func(s int64) bool { return s < 0 || s%coreRow(v) != 0 })
			}},
		{Rule: ummaRule("stride-range", "leading and stride byte offsets must be below 2^18 bytes (matrix-descriptor-encode keeps 14 bits of x>>4)", ptxUMMALayouts),
			Fires: func(v um.Value) bool {
				return freeStrides(v, func(s int64) bool { return s*int64(v.ElemBits) >= 8<<18 })
			}},
	},
}
