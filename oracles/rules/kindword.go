package rules

import (
	"fmt"
	"strconv"

	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func init() { register(kindwordSeed, kindwordPTXISA) }

// Seed 001's tcgen05.mma opcode indices. The seed pins 10522 (dense mma),
// 10521 and 10526 (block-scale forms) and says there are ten; the rest of the
// table is our reconstruction of the four forms and their ws siblings.
const (
	opBlockScale     = 10521
	opMMA            = 10522
	opSparse         = 10523
	opWS             = 10524
	opWSSparse       = 10525
	opSparseBlockSc  = 10526
	opMMAScaleInputD = 10527
)

// seedFields is the kind word as the seed's verifier reads it.
type seedFields struct {
	raw      uint16
	kind     kw.Kind
	svs      uint16 // scale_vector_size field
	acc, bs  bool   // scale_input_acc, block_scale (== sparsity bit)
	ws       bool
	coll     uint8
	archCond bool
	tgt      target.Target
}

func seedView(v kw.Value) seedFields {
	raw := v.Raw()
	return seedFields{
		raw: raw, kind: kw.Kind(raw >> 6 & 7), svs: raw >> 2 & 3,
		acc: raw&0x10 != 0, bs: raw&0x20 != 0, ws: raw&1 != 0,
		coll: v.Collector(), archCond: v.ArchConditional, tgt: v.Tgt,
	}
}

// selectOpcode is seed 001's select_tcgen05_opcode over the raw word.
func selectOpcode(f seedFields) int {
	switch {
	case f.kind.BlockScaled() && f.bs:
		return opSparseBlockSc
	case f.kind.BlockScaled():
		return opBlockScale
	case f.ws && f.bs:
		return opWSSparse
	case f.ws:
		return opWS
	case f.bs:
		return opSparse
	case f.acc:
		return opMMAScaleInputD
	}
	return opMMA
}

// belowSM100a is the seed's "isa_version < SM100A": targets order by SM
// number, and within one number "" and "f" sort below "a".
func belowSM100a(t target.Target) bool {
	return t.Arch.SM < 100 || (t.Arch.SM == 100 && !t.Arch.ArchSpecific())
}

const seed001Kind = "seed 001, tcgen05.mma Kind-Word Verifier, rule "

func kindIn(k kw.Kind, ks ...kw.Kind) bool {
	for _, x := range ks {
		if k == x {
			return true
		}
	}
	return false
}

const (
	doubtKindValues = "ptx-facts claim 1: compiler code suggests i8=4, mxf4nvf4=0, mxf8f6f4=2, mxf4=7, f8f6f4=1, f16/tf32 in {3,5}"
	doubtScaleVec   = "ptx-facts claim 2: compiler code suggests scale_vector_size 0=unspecified, 1=1X, 2=2X, 3=4X"
	doubtBit5       = "ptx-facts claim 3: bit 5 selects the sparse (.sp) form, not block scale"
	doubtBits01     = "ptx-facts claim 4: bit 0 looks like .ws and bit 1 like cta_group::2, not a 2-bit cta_group field"
)

func kwSeedRule(n int, name, msg, doubt string) *Rule {
	return seedRule(kw.Name, strconv.Itoa(n)+"-"+name, msg, seed001Kind+strconv.Itoa(n), doubt)
}

// kindwordSeed is seed 001's 13-rule fail-first ladder, diagnostics verbatim
// (the "colletor" typo included); on success it carries the opcode index.
var kindwordSeed = &Ladder[kw.Value]{Set: Seed, Domain: kw.Name,
	Value: func(v kw.Value) string { return strconv.Itoa(selectOpcode(seedView(v))) },
	Checks: []Check[kw.Value]{
		{Rule: kwSeedRule(1, "int8-arch-conditional", "INT8 type is supported only on arch-conditional variants.",
			doubtKindValues+"; claim 7: i8 is not on sm_103a"),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.kind == kw.I8 && !f.archCond }},
		{Rule: kwSeedRule(2, "mxf4-sparse-arch-conditional", "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants.",
			doubtBit5+"; claim 7: sparse mxf4 is allowed on sm_103a"),
			Fires: func(v kw.Value) bool {
				f := seedView(v)
				return kindIn(f.kind, kw.MXF4NVF4, kw.MXF4) && f.bs && !f.archCond
			}},
		{Rule: kwSeedRule(3, "scale-vec-arch-conditional", "Explicit scale vector size is supported only on arch-conditional variants.",
			doubtScaleVec+"; claim 7: .block16/.block32 are allowed on f-targets"),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.svs != 0 && !f.archCond }},
		{Rule: kwSeedRule(4, "scale-input-acc-arch", "Scale input accumulator is not supported on this architecture.",
			"ptx-facts claim 6: PTX allows scale-input-d on sm_100a or the sm_100f family from PTX 8.8"),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.acc && belowSM100a(f.tgt) }},
		{Rule: kwSeedRule(5, "scale-input-acc-kind", "Scale input accumulator can only be used with f16 and tf32 types", doubtKindValues),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.acc && !kindIn(f.kind, kw.F16, kw.TF32) }},
		{Rule: kwSeedRule(6, "block-scale-kind", "Block scale is not supported for f16, tf32, f8f6f4, and i8 types", doubtBit5),
			Fires: func(v kw.Value) bool {
				f := seedView(v)
				return f.bs && kindIn(f.kind, kw.I8, kw.F16, kw.TF32, kw.F8F6F4)
			}},
		{Rule: kwSeedRule(7, "ashift-block-scale", "ashift is not supported with tcgen05.mma.block_scale variants", ""),
			Fires: func(v kw.Value) bool {
				f := seedView(v)
				op := selectOpcode(f)
				return (op == opBlockScale || op == opSparseBlockSc) && f.coll&kw.CollectorAShift != 0
			}},
		{Rule: kwSeedRule(8, "ws-cta-group-2", "cta_group::2 is not supported with weight stationary", doubtBits01),
			Fires: func(v kw.Value) bool { return seedView(v).raw&3 == 3 }},
		{Rule: kwSeedRule(9, "ws-kind", "Cannot use weight stationary with mxf8f6f4 and fp4 types",
			doubtBits01+"; claim 5: PTX allows .ws with f16, tf32, f8f6f4, i8 and forbids mxf8f6f4, mxf4, mxf4nvf4"),
			Fires: func(v kw.Value) bool {
				f := seedView(v)
				return f.ws && kindIn(f.kind, kw.MXF8F6F4, kw.F8F6F4, kw.MXF4)
			}},
		{Rule: kwSeedRule(10, "collector-ashift", "Cannot use collector::a::use or colletor::a::fill with ashift", ""),
			Fires: func(v kw.Value) bool {
				c := seedView(v).coll
				op := kw.Collector(c & 3)
				return (op == kw.Use || op == kw.Fill) && c&kw.CollectorAShift != 0
			}},
		{Rule: kwSeedRule(11, "mxf8f6f4-scale-vec", "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type",
			doubtScaleVec+"; the seed contradicts itself: its condition (scale_vector_size > 1) lets 2X (field value 1) through although the message names it"),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.kind == kw.MXF8F6F4 && f.svs > 1 }},
		{Rule: kwSeedRule(12, "mxf4nvf4-scale-vec", "Cannot use 1X as scale vector size for mxf4nvf4 type", doubtScaleVec),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.kind == kw.MXF4NVF4 && f.svs == 0 }},
		{Rule: kwSeedRule(13, "mxf4-scale-vec", "Cannot use 1X or 4X as scale vector size for mxf4 type",
			doubtScaleVec+"; PTX's default for mxf4 is 2X, which the seed cannot write"),
			Fires: func(v kw.Value) bool { f := seedView(v); return f.kind == kw.MXF4 && (f.svs == 0 || f.svs == 2) }},
	},
}

func init() { registerSelfCheck(kw.Name, checkKindWordRaw) }

// checkKindWordRaw checks the raw-word encoding both ways: the words read
// back as the seed reads them pack to the same words, and an accepted word's
// opcode lies in the seed's range 10521..10530.
func checkKindWordRaw(val kw.Value) error {
	back := kw.FromRaw(val.Raw(), val.Collector(), val.ArchConditional, val.Tgt)
	if back.Raw() != val.Raw() || back.Collector() != val.Collector() {
		return fmt.Errorf("raw 0x%03x/collector %d reads back as 0x%03x/%d", val.Raw(), val.Collector(), back.Raw(), back.Collector())
	}
	if j := kindwordSeed.Judge(val); j.Accept {
		if op, _ := strconv.Atoi(j.Value); op < 10521 || op > 10530 {
			return fmt.Errorf("accepted raw 0x%03x selects opcode %s outside 10521..10530", val.Raw(), j.Value)
		}
	}
	return nil
}
