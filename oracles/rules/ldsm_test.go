package rules

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// ldsmWith returns v changed by f.
func ldsmWith(v ldsm.Value, f func(*ldsm.Value)) ldsm.Value { f(&v); return v }

var (
	ldsmSM90a  = target.MustParse("sm_90a", "")
	ldsmSM100a = target.MustParse("sm_100a", "")
	ldsmM88x4  = ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.U16, ldsmSM90a)
	ldsmB16x4  = ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, ldsmSM90a)
	ldsmST88   = ldsm.New(ldsm.Store, ldsm.M8N8, 4, false, ldsm.U16, ldsmSM90a)
	ldsmM1616  = ldsm.New(ldsm.Load, ldsm.M16N16, 2, true, ldsm.B8, ldsmSM100a)
)

// ldsmSeedCases fire every seed rule in ladder order and pin the seed's
// table rows as accepts.
var ldsmSeedCases = []ladderCase[ldsm.Value]{
	{"x3", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.NumMatrices = 3 }), "seed.ldsm.num-matrices",
		"require(num_matrices == 1 || num_matrices == 2 || num_matrices == 4)", ""},
	{"M88 with .trans", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.Transpose = true }), "seed.ldsm.transpose",
		"require(transpose == mode.requires_transpose)", ""},
	{"MT1616 without .trans", ldsmWith(ldsm.New(ldsm.Load, ldsm.M16N16, 1, true, ldsm.U8, ldsmSM90a), func(v *ldsm.Value) { v.Transpose = false }),
		"seed.ldsm.transpose", "require(transpose == mode.requires_transpose)", ""},
	{"M88 b16", ldsmB16x4, "seed.ldsm.size", "require(size in mode.accepted_sizes)", ""},
	{"stmatrix m16n8 has no mode", ldsm.New(ldsm.Store, ldsm.M16N8, 2, false, ldsm.B8, ldsmSM100a), "seed.ldsm.size",
		"require(size in mode.accepted_sizes)", ""},
	{"rank 2", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.ResultRank = 2 }), "seed.ldsm.result-rank", "require(result_shape.rank == 1)", ""},
	{"dim0 4 for x4", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.ResultDim0 = 4 }), "seed.ldsm.result-extent",
		"require(result_shape.dim(0) == expected_ldsm_extent(mode, num_matrices))", ""},
	{"load from global", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.Src = ldsm.Global }), "seed.ldsm.load-src-space",
		"require(op.src.memory_space == SHARED_MEMORY)", ""},
	{"load into local", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.Dst = ldsm.Local }), "seed.ldsm.load-dst-space",
		"require(op.dst.memory_space == REGISTER_MEMORY)", ""},
	{"store from shared", ldsmWith(ldsmST88, func(v *ldsm.Value) { v.Src = ldsm.Shared }), "seed.ldsm.store-src-space",
		"require(op.src.memory_space == REGISTER_MEMORY)", ""},
	{"store into global", ldsmWith(ldsmST88, func(v *ldsm.Value) { v.Dst = ldsm.Global }), "seed.ldsm.store-dst-space",
		"require(op.dst.memory_space == SHARED_MEMORY)", ""},
	{"MT1616 x4 passes verify_ldsm_mode", ldsm.New(ldsm.Load, ldsm.M16N16, 4, true, ldsm.U8, ldsmSM90a), "seed.ldsm.fragment-shape",
		"require(fragment_shape_matches_mode(op.mode, op.result_shape))", ""},
	{"8-byte aligned", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.Align = 8 }), "seed.ldsm.alignment",
		"require(pointer_alignment_meets_atom_requirement(op.shared_operand))", ""},
	{"cosize 3 for 4 registers", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.Cosize = 3 }), "seed.ldsm.register-bits",
		"require(actual_bits == expected_bits)", ""},
	{"fail-first: x3 with .trans and b16 reports the count", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.NumMatrices, v.Transpose = 3, true }),
		"seed.ldsm.num-matrices", "require(num_matrices == 1 || num_matrices == 2 || num_matrices == 4)", ""},
	{"table: M88 x4 u16", ldsmM88x4, "", "", "extent=8"},
	{"table: MT88 x1 u16", ldsm.New(ldsm.Load, ldsm.M8N8, 1, true, ldsm.U16, ldsmSM90a), "", "", "extent=2"},
	{"table: M816 x2 s4to8", ldsm.New(ldsm.Load, ldsm.M8N16, 2, false, ldsm.S4to8, ldsmSM90a), "", "", "extent=8"},
	{"table: M832 x4 u2to4", ldsm.New(ldsm.Load, ldsm.M8N32, 4, false, ldsm.U2to4, ldsmSM90a), "", "", "extent=32"},
	{"table: MT1616 x2 b6x16_p32", ldsm.New(ldsm.Load, ldsm.M16N16, 2, true, ldsm.B6P32, ldsmSM90a), "", "", "extent=16"},
	{"stmatrix M816 (PTX has none)", ldsm.New(ldsm.Store, ldsm.M8N16, 1, false, ldsm.B4P64, ldsmSM90a), "", "", "extent=4"},
	{"register count the seed does not tie to the mode", ldsmWith(ldsmM88x4, func(v *ldsm.Value) { v.RegisterCount, v.Cosize = 2, 2 }),
		"", "", "extent=8"},
}

// ldsmPTXCases fire every ptxisa rule in ladder order and pin accepted
// instructions.
var ldsmPTXCases = []ladderCase[ldsm.Value]{
	{"sm_90a at PTX 7.8", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Tgt = target.MustParse("sm_90a", "7.8") }),
		"ptxisa.ldsm.target-ptx-version", "PTX ISA version does not know the .target: sm_90a (PTX 7.8)", ""},
	{"ldmatrix into shared", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Dst = ldsm.Shared }), "ptxisa.ldsm.ldmatrix-spaces",
		"ldmatrix loads from .shared into registers", ""},
	{"stmatrix from local", ldsmWith(ldsmST88, func(v *ldsm.Value) { v.Src = ldsm.Local }), "ptxisa.ldsm.stmatrix-spaces",
		"stmatrix stores from registers into .shared", ""},
	{"ldmatrix m8n32", ldsm.New(ldsm.Load, ldsm.M8N32, 1, false, ldsm.U2to4, ldsmSM100a), "ptxisa.ldsm.ldmatrix-shape",
		"ldmatrix .shape must be .m8n8, .m16n16 or .m8n16: .m8n32", ""},
	{"stmatrix m16n16", ldsm.New(ldsm.Store, ldsm.M16N16, 1, true, ldsm.B8, ldsmSM100a), "ptxisa.ldsm.stmatrix-shape",
		"stmatrix .shape must be .m8n8 or .m16n8: .m16n16", ""},
	{"x8", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.NumMatrices = 8 }), "ptxisa.ldsm.num", ".num must be .x1, .x2 or .x4: 8 matrices", ""},
	{"m16n16 x4", ldsm.New(ldsm.Load, ldsm.M16N16, 4, true, ldsm.B8, ldsmSM100a), "ptxisa.ldsm.m16n16-num",
		"ldmatrix .m16n16 allows only .x1 and .x2", ""},
	{"stmatrix m16n8 without .trans", ldsm.New(ldsm.Store, ldsm.M16N8, 1, false, ldsm.B8, ldsmSM100a), "ptxisa.ldsm.trans-mandatory",
		".trans is mandatory for ldmatrix .m16n16 and stmatrix .m16n8", ""},
	{"m8n16 with .trans", ldsm.New(ldsm.Load, ldsm.M8N16, 1, true, ldsm.B6P32, ldsmSM100a), "ptxisa.ldsm.m8n16-trans",
		"ldmatrix .m8n16 takes no .trans", ""},
	{"u16", ldsmM88x4, "ptxisa.ldsm.type-spelling", "PTX spells the element type .b16 or .b8, not u16 or u8", ""},
	{"s4to8", ldsm.New(ldsm.Load, ldsm.M8N16, 1, false, ldsm.S4to8, ldsmSM100a), "ptxisa.ldsm.type-no-ptx-form",
		"no PTX format: sub-byte sources are only unsigned 6- or 4-bit (.b8x16.b6x16_p32, .b8x16.b4x16_p64): s4to8", ""},
	{"m8n8 b8", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Size = ldsm.B8 }), "ptxisa.ldsm.shape-type",
		"the .type does not fit the .shape (.m8n8: .b16; .m16n16: .b8 or .b8x16.*; .m8n16: .b8x16.*; .m16n8: .b8): .m8n8 .b8", ""},
	{"stmatrix at PTX 7.0", ldsm.New(ldsm.Store, ldsm.M8N8, 1, false, ldsm.B16, target.MustParse("sm_80", "")), "ptxisa.ldsm.stmatrix-ptx",
		"stmatrix requires PTX ISA 7.8", ""},
	{"stmatrix on sm_89", ldsm.New(ldsm.Store, ldsm.M8N8, 1, false, ldsm.B16, target.MustParse("sm_89", "")), "ptxisa.ldsm.stmatrix-target",
		"stmatrix requires sm_90 or later", ""},
	{"m16n16 at PTX 8.5", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.Tgt = target.MustParse("sm_90a", "8.5") }), "ptxisa.ldsm.new-forms-ptx",
		".m16n16, .m8n16, .m16n8 and their .b8/.b8x16 types require PTX ISA 8.6", ""},
	{"m16n16 on sm_90a", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.Tgt = target.MustParse("sm_90a", "8.6") }), "ptxisa.ldsm.new-forms-target",
		".m16n16, .m8n16 and .m16n8 require sm_100a, sm_101a, sm_103a, sm_110a or sm_120a, or an f-family target from PTX 8.8: sm_90a (PTX 8.6)", ""},
	{"m16n16 on sm_100", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.Tgt = target.MustParse("sm_100", "") }), "ptxisa.ldsm.new-forms-target",
		".m16n16, .m8n16 and .m16n8 require sm_100a, sm_101a, sm_103a, sm_110a or sm_120a, or an f-family target from PTX 8.8: sm_100 (PTX 8.6)", ""},
	{"rank 0", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.ResultRank, v.ResultDim0 = 0, 0 }), "ptxisa.ldsm.result-shape",
		"each lane's fragment is one rank-1 vector of rows × cols × .num / 32 elements: want [8]", ""},
	{"m16n16 x2 in 2 registers", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.RegisterCount, v.Cosize = 2, 2 }), "ptxisa.ldsm.register-count",
		"the register vector must hold one 32-bit register per matrix (two for .m16n16): want 4", ""},
	{"cosize 5", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Cosize = 5 }), "ptxisa.ldsm.fragment-cosize",
		"the register layout must cover exactly the destination registers (cosize == register count)", ""},
	{"4-byte aligned", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Align = 4 }), "ptxisa.ldsm.alignment",
		"each row address must be 16-byte aligned", ""},
	{"m8n8 x4 b16", ldsmB16x4, "", "", "ldmatrix.sync.aligned.m8n8.x4.shared.b16;regs=4"},
	{"m8n8 x4 .trans b16", ldsm.New(ldsm.Load, ldsm.M8N8, 4, true, ldsm.B16, ldsmSM90a), "", "", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16;regs=4"},
	{"m16n16 x2 b8", ldsmM1616, "", "", "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8;regs=4"},
	{"m8n16 x1 b4x16_p64 on sm_120a", ldsm.New(ldsm.Load, ldsm.M8N16, 1, false, ldsm.B4P64, target.MustParse("sm_120a", "")), "", "",
		"ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64;regs=1"},
	{"stmatrix m16n8 x4 on sm_100f", ldsm.New(ldsm.Store, ldsm.M16N8, 4, true, ldsm.B8, target.MustParse("sm_100f", "")), "", "",
		"stmatrix.sync.aligned.m16n8.x4.trans.shared.b8;regs=4"},
	{"stmatrix m8n8 x2 on sm_90", ldsm.New(ldsm.Store, ldsm.M8N8, 2, false, ldsm.B16, target.MustParse("sm_90", "")), "", "",
		"stmatrix.sync.aligned.m8n8.x2.shared.b16;regs=2"},
	{"128-byte alignment", ldsmWith(ldsmB16x4, func(v *ldsm.Value) { v.Align = 128 }), "", "", "ldmatrix.sync.aligned.m8n8.x4.shared.b16;regs=4"},
}

func TestLDSMSeedLadder(t *testing.T)   { runLadderCases(t, ldsmSeed, ldsmSeedCases) }
func TestLDSMPTXISALadder(t *testing.T) { runLadderCases(t, ldsmPTXISA, ldsmPTXCases) }

// TestLDSMSeedRulesAreVerbatim checks that every seed message is a
// require(...) line of the seed.
func TestLDSMSeedRulesAreVerbatim(t *testing.T) {
	for _, r := range ldsmSeed.Rules() {
		if !strings.HasPrefix(r.Message, "require(") || !strings.HasSuffix(r.Message, ")") {
			t.Errorf("%s: %q is not a require(...) line", r.ID, r.Message)
		}
	}
}

// TestLDSMFragmentSelfCheck runs the enumeration against the closed forms
// for every shape and count, and shows that it notices a wrong one.
func TestLDSMFragmentSelfCheck(t *testing.T) {
	for s := ldsm.M8N8; s <= ldsm.M8N32; s++ {
		for n := 1; n <= ldsm.MaxNum; n++ {
			v := ldsm.New(ldsm.Load, s, n, false, ldsm.B16, ldsmSM90a)
			if err := checkLDSMFragment(v); err != nil {
				t.Errorf("%s x%d: %v", s, n, err)
			}
		}
	}
	f := enumerateFragment(ldsm.M16N16, 2)
	if f.elemsPerLane != 16 || f.regsPerLane != 4 || f.err != nil {
		t.Fatalf("m16n16 x2 enumerates to %+v, want 16 elements in 4 registers", f)
	}
	if f := enumerateFragment(ldsm.M8N8, 3); f.regsPerLane != 3 {
		t.Fatalf("m8n8 x3 enumerates to %d registers, want 3", f.regsPerLane)
	}
}

// TestFiringRules: FiringRules lists every rule a value breaks in ladder
// order, the first being Judge's; a legal value breaks none. A spelling
// breaks only type-spelling: shape-type judges the width the spelling
// stands for.
func TestFiringRules(t *testing.T) {
	firing := func(v ldsm.Value) string {
		t.Helper()
		got, err := FiringRules(PTXISA, ldsm.Name, v)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, strings.TrimPrefix(r.ID, "ptxisa.ldsm."))
		}
		if j, err := JudgeValue(PTXISA, ldsm.Name, v); err != nil || (len(got) > 0) == j.Accept || (len(got) > 0 && j.Rule != got[0]) {
			t.Errorf("Judge says %+v (%v), FiringRules %v", j, err, ids)
		}
		return strings.Join(ids, " ")
	}
	for _, tc := range []struct {
		name string
		v    ldsm.Value
		want string
	}{
		{"stmatrix u16 on sm_80 at PTX 7.0", ldsmWith(ldsmST88, func(v *ldsm.Value) { v.Tgt = target.MustParse("sm_80", "7.0") }),
			"type-spelling stmatrix-ptx stmatrix-target"},
		{"u16 where .b8 is due", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.Size = ldsm.U16 }), "type-spelling shape-type"},
		{"u4to8, which has no PTX form", ldsmWith(ldsmM1616, func(v *ldsm.Value) { v.Size = ldsm.U4to8 }), "type-no-ptx-form"},
		{"legal", ldsmB16x4, ""},
	} {
		if got := firing(tc.v); got != tc.want {
			t.Errorf("%s breaks %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := FiringRules(PTXISA, ldsm.Name, 42); err == nil {
		t.Error("a value of the wrong type was taken")
	}
}
