package rules

import (
	"math/rand/v2"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	um "github.com/legalfuzz/legalfuzz/fuzz/umma"
)

// umMode builds a mode from (shape, stride) pairs: one pair is a flat mode.
func umMode(pairs ...[2]int32) um.Mode {
	m := um.Mode{Subs: uint8(len(pairs))}
	for i, p := range pairs {
		m.Shape[i], m.Stride[i] = uint16(p[0]), p[1]
	}
	return m
}

// umOp builds a rank-2 (MN, K) operand on sm_100a.
func umOp(dir, bits uint8, swz [3]uint8, mn, k um.Mode) um.Value {
	return um.Value{Direction: dir, ElemBits: bits, Swizzle: swz, Rank: 2, Modes: [um.MaxModes]um.Mode{mn, k},
		KMode: 1, Tgt: target.MustParse("sm_100a", "")}
}

func umWith(v um.Value, f func(*um.Value)) um.Value { f(&v); return v }

var (
	umNone, um128 = [3]uint8{0, 4, 3}, [3]uint8{3, 4, 3}
	// umFlatK is the flat K-major 16-bit operand MN 8:8, K 16:1.
	umFlatK = umOp(um.DirK, 16, umNone, umMode([2]int32{8, 8}), umMode([2]int32{16, 1}))
	// umFlatMN is the flat MN-major operand the seed's reading accepts.
	umFlatMN = umOp(um.DirMN, 16, umNone, umMode([2]int32{64, 8}), umMode([2]int32{16, 8}))
	// umK128 is PTX's K-major 128B canonical layout ((8,16),(8,2)):((64,512),(1,8)).
	umK128 = umOp(um.DirK, 16, um128, umMode([2]int32{8, 64}, [2]int32{16, 512}), umMode([2]int32{8, 1}, [2]int32{2, 8}))
	// umMN128 is PTX's MN-major 128B canonical layout ((8,8,2),(8,2)):((1,8,1024),(64,2048)).
	umMN128 = umOp(um.DirMN, 16, um128, umMode([2]int32{8, 1}, [2]int32{8, 8}, [2]int32{2, 1024}),
		umMode([2]int32{8, 64}, [2]int32{2, 2048}))
)

const (
	umMNK      = "Not a canonical UMMA_MN Layout: Expected K-size 256/sizeof_bits<T> or 512/sizeof_bits(T) in sparse gemm kernels."
	umMNFlat   = "Not a canonical UMMA_MN Layout: No flat offset mode"
	umMNStride = "Not a canonical UMMA_MN Layout: Expected stride failure."
	umKMN      = "Not a canonical UMMA_K Layout: Expected MN-size multiple of "
	umKFlat    = "Not a canonical UMMA_K Layout: No flat offset mode"
	umKStride  = "Not a canonical UMMA_K Layout: Expected stride failure."
)

func TestUMMASeedLadder(t *testing.T) {
	runRuleRows(t, ummaSeed, []ruleRow[um.Value]{
		{"flat K-major", umFlatK, "", "elem_class=b16,k=16,mn=8"},
		{"flat MN-major", umFlatMN, "", "elem_class=b16,k=16,mn=64"},
		{"fp4 K-major", umWith(umFlatK, func(v *um.Value) {
			v.ElemBits, v.Modes[0], v.Modes[1] = 4, umMode([2]int32{8, 4}), umMode([2]int32{64, 1})
		}), "", "elem_class=fp4,k=64,mn=8"},
		{"the seed's no-swizzle triple", umWith(umFlatK, func(v *um.Value) { v.Swizzle = [3]uint8{0, 2, 5} }), "", "elem_class=b16,k=16,mn=8"},
		{"(2,5,2) on a K-major operand", umWith(umFlatK, func(v *um.Value) { v.Swizzle = [3]uint8{2, 5, 2} }), "", "elem_class=b16,k=16,mn=8"},
		{"direction 2 takes the UMMA_K branch", umWith(umFlatK, func(v *um.Value) { v.Direction = 2 }), "", "elem_class=b16,k=16,mn=8"},
		{"shape-1 K mode has no stride to check", umWith(umFlatK, func(v *um.Value) { v.Modes[1] = umMode([2]int32{1, 5}) }),
			"", "elem_class=b16,k=1,mn=8"},
		{"sparse K on a dense operand", umWith(umFlatMN, func(v *um.Value) { v.Modes[1] = umMode([2]int32{32, 8}) }),
			"", "elem_class=b16,k=32,mn=64"},
		{"swizzle (3,4,4)", umWith(umFlatK, func(v *um.Value) { v.Swizzle = [3]uint8{3, 4, 4} }),
			"seed.umma.unsupported-swizzle", "unsupported swizzle, got (3,4,4)"},
		{"64-bit elements", umWith(umFlatK, func(v *um.Value) { v.ElemBits = 64 }),
			"seed.umma.elem-width", "(no diagnostic: element width above 32 bits)"},
		{"UMMA_MN with K 8", umWith(umFlatMN, func(v *um.Value) { v.Modes[1] = umMode([2]int32{8, 8}) }), "seed.umma.mn-k-size", umMNK},
		{"UMMA_MN with 0-bit elements", umWith(umFlatMN, func(v *um.Value) { v.ElemBits = 0 }), "seed.umma.mn-k-size", umMNK},
		{"PTX MN-major canonical", umMN128, "seed.umma.mn-flat", umMNFlat},
		{"PTX MN-major stride 1", umWith(umFlatMN, func(v *um.Value) { v.Modes[0] = umMode([2]int32{64, 1}) }),
			"seed.umma.mn-stride", umMNStride},
		{"MN 12 rows", umWith(umFlatK, func(v *um.Value) { v.Modes[0] = umMode([2]int32{12, 8}) }), "seed.umma.k-mn-size", umKMN + "8."},
		{"fp4 MN 6 rows", umWith(umFlatK, func(v *um.Value) {
			v.ElemBits, v.Modes[0], v.Modes[1] = 4, umMode([2]int32{6, 32}), umMode([2]int32{64, 1})
		}), "seed.umma.k-mn-size", umKMN + "4."},
		{"PTX K-major canonical", umK128, "seed.umma.k-flat", umKFlat},
		{"PTX K-major 128B flattened", umWith(umFlatK, func(v *um.Value) { v.Swizzle, v.Modes[0] = um128, umMode([2]int32{128, 64}) }),
			"seed.umma.k-stride", umKStride},
		{"6-bit elements: undefined stride", umWith(umFlatK, func(v *um.Value) { v.ElemBits = 6 }), "seed.umma.k-stride", umKStride},
	})
}

func TestUMMAPTXISALadder(t *testing.T) {
	runRuleRows(t, ummaPTXISA, []ruleRow[um.Value]{
		{"flat K-major", umFlatK, "", "K-major swizzle=none k=16 mn=8 bytes=144"},
		{"K-major 128B canonical", umK128, "", "K-major swizzle=128B k=16 mn=128 bytes=16288"},
		{"MN-major 128B canonical", umMN128, "", "MN-major swizzle=128B k=16 mn=128 bytes=7168"},
		{"sparse K-major", umWith(umFlatK, func(v *um.Value) { v.Sparse, v.Modes[1] = true, umMode([2]int32{32, 1}) }),
			"", "K-major swizzle=none k=32 mn=8 bytes=176"},
		{"the seed's no-swizzle triple", umWith(umFlatK, func(v *um.Value) { v.Swizzle = [3]uint8{0, 2, 5} }),
			"", "K-major swizzle=none k=16 mn=8 bytes=144"},
		{"128B with 32-byte atoms", umWith(umMN128, func(v *um.Value) {
			v.Swizzle, v.Modes[1] = [3]uint8{2, 5, 2}, umMode([2]int32{4, 64}, [2]int32{4, 2048})
		}), "", "MN-major swizzle=128B_base32B k=16 mn=128 bytes=14848"},
		{"old PTX", umWith(umFlatK, func(v *um.Value) { v.Tgt = target.MustParse("sm_100a", "8.4") }),
			"ptxisa.umma.target-ptx-version", "PTX ISA version does not know the .target: sm_100a (PTX 8.4)"},
		{"Hopper", umWith(umFlatK, func(v *um.Value) { v.Tgt = target.MustParse("sm_90a", "") }), "ptxisa.umma.target",
			"UMMA (tcgen05.mma) requires sm_100a, sm_101a, sm_103a or sm_110a, or an f-family target from PTX 8.8"},
		{"direction 2", umWith(umFlatK, func(v *um.Value) { v.Direction = 2 }), "ptxisa.umma.direction",
			"an operand is K-major (0) or MN-major (1)"},
		{"6-bit elements", umWith(umFlatK, func(v *um.Value) { v.ElemBits = 6 }), "ptxisa.umma.elem-width",
			"shared-memory operand elements are 4, 8, 16 or 32 bits wide"},
		{"swizzle (3,4,4)", umWith(umFlatK, func(v *um.Value) { v.Swizzle = [3]uint8{3, 4, 4} }), "ptxisa.umma.swizzle",
			"the triple names no descriptor swizzle mode (none, 32B, 64B, 128B, 128B with 32-byte atoms): (3,4,4)"},
		{"K and MN the same mode", umWith(umFlatK, func(v *um.Value) { v.KMode = 0 }), "ptxisa.umma.modes",
			"an operand layout has exactly two modes, MN and K"},
		{"dense operand, sparse K", umWith(umFlatK, func(v *um.Value) { v.Modes[1] = umMode([2]int32{32, 1}) }), "ptxisa.umma.k-extent",
			"one MMA reads 32 bytes of K, 64 bytes with sparsity"},
		{"MN-major with MN stride 8", umFlatMN, "ptxisa.umma.contiguous",
			"the leading mode must start with contiguous 16-byte rows (T elements at stride 1, the whole swizzle row when swizzled)"},
		{"128B rows 16 bytes apart", umWith(umFlatK, func(v *um.Value) { v.Swizzle = um128 }), "ptxisa.umma.row-pitch",
			"the strided mode must step across the 8 rows of a core matrix at the swizzle row pitch"},
		{"SBO of 200 bytes", umWith(umFlatK, func(v *um.Value) { v.Modes[0] = umMode([2]int32{8, 8}, [2]int32{2, 100}) }),
			"ptxisa.umma.stride-granule", "leading and stride byte offsets must be non-negative multiples of 16 bytes"},
		{"SBO of 2^18 bytes", umWith(umFlatK, func(v *um.Value) { v.Modes[0] = umMode([2]int32{8, 8}, [2]int32{2, 1 << 17}) }),
			"ptxisa.umma.stride-range",
			"leading and stride byte offsets must be below 2^18 bytes (matrix-descriptor-encode keeps 14 bits of x>>4)"},
	})
}

// TestUMMADisagreements pins the seed-vs-PTX differences the campaign
// should show: PTX's nested canonical layouts fail the seed's flat-mode
// rule, and the seed's flat layouts miss PTX's row pitch or contiguity.
func TestUMMADisagreements(t *testing.T) {
	for _, tc := range []struct {
		name             string
		v                um.Value
		seedOK, ptxisaOK bool
	}{
		{"nested K-major canonical", umK128, false, true},
		{"nested MN-major canonical", umMN128, false, true},
		{"flat MN-major", umFlatMN, true, false},
		{"flat 128B K-major with 16-byte rows", umWith(umFlatK, func(v *um.Value) { v.Swizzle = um128 }), true, false},
		{"dense operand with sparse K", umWith(umFlatK, func(v *um.Value) { v.Modes[1] = umMode([2]int32{32, 1}) }), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ummaSeed.Judge(tc.v).Accept; got != tc.seedOK {
				t.Errorf("seed accept %v, want %v", got, tc.seedOK)
			}
			if got := ummaPTXISA.Judge(tc.v).Accept; got != tc.ptxisaOK {
				t.Errorf("ptxisa accept %v, want %v", got, tc.ptxisaOK)
			}
		})
	}
}

// TestUMMASelfChecks runs the cosize and stride-rebuild checks over the
// seeds and random layouts with small shapes and signed strides.
func TestUMMASelfChecks(t *testing.T) {
	for _, v := range um.Seeds() {
		if err := SelfCheck(um.Name, v); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(0x0a11a, 9))
	for range domaintest.Iterations(3000, 200) {
		v := um.Value{Direction: uint8(rng.IntN(3)), ElemBits: []uint8{4, 8, 16, 32}[rng.IntN(4)], Rank: uint8(1 + rng.IntN(4))}
		for i := range v.Rank {
			m := um.Mode{Subs: uint8(1 + rng.IntN(um.MaxSubs))}
			for s := range m.Subs {
				m.Shape[s], m.Stride[s] = uint16(1+rng.IntN(4)), int32(rng.IntN(41)-20)
			}
			v.Modes[i] = m
		}
		v.KMode, v.MNMode = uint8(rng.IntN(int(v.Rank))), uint8(rng.IntN(int(v.Rank)))
		if err := SelfCheck(um.Name, v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUMMASeedRuleProvenance(t *testing.T) {
	for _, r := range ummaSeed.Rules() {
		if r.Doubtful == "" {
			t.Errorf("%s: every UMMA seed rule rests on a vague or contradicted claim and should say so", r.ID)
		}
	}
}

// TestFiringPastAGuard: a umma value with zero-bit elements breaks the
// element-width rule first; the contiguity check after it divides by the
// width. FiringRules, which evaluates every check, lists the first rule
// and does not panic (issue 36's minimizer ranks such values).
func TestFiringPastAGuard(t *testing.T) {
	v := um.Value{}
	j, err := JudgeValue(PTXISA, um.Name, v)
	if err != nil || j.Accept {
		t.Fatalf("zero umma value: %+v, %v; want a rejection", j, err)
	}
	got, err := FiringRules(PTXISA, um.Name, v)
	if err != nil || len(got) == 0 || got[0] != j.Rule {
		t.Fatalf("FiringRules = %v, %v; want %s first", got, err, j.Rule.ID)
	}
}
