package llvm

import (
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles/intrinsic"
)

// LLVM 22 spells tcgen05.mma as a family of intrinsics: the operand places
// are in the name (.sp, .tensor or .shared for A, .scale_d, .ashift, the
// block-scaled kind and its .block16/.block32), and kind, cta_group and
// collector are immargs, kind numbered {f16=0, tf32=1, f8f6f4=2, i8=3} and
// collector {discard=0, lastuse=1, fill=2, use=3}. The .ws family has no
// cta_group operand and a B-side collector (buffer b0..b3, then the op).
// Immargs are written as the value says (cta_group 0 or 3 included), so
// llc's verifier and instruction selection judge them.
const tcgen05 = "llvm.nvvm.tcgen05.mma"

// denseKind numbers the non-block-scaled kinds as the intrinsics' immarg.
var denseKind = map[kw.Kind]int64{kw.F16: 0, kw.TF32: 1, kw.F8F6F4: 2, kw.I8: 3}

// renderKindWord renders one tcgen05.mma instruction. The seed's
// arch-conditional flag has no IR spelling: the case's target (sm_100a or
// sm_100) is what makes the instruction arch-conditional for llc.
func renderKindWord(w kw.Value, k *kernel) error {
	switch {
	case w.Kind == kw.Reserved6:
		return noSpelling("kind", "reserved-6", "no LLVM spelling for reserved kind 6")
	case w.AShift && !w.ATMem:
		return noSpelling("ashift", "a-in-shared", "no LLVM spelling for .ashift with A in shared memory (only the .tensor intrinsics have .ashift)")
	case w.WS:
		return renderWS(w, k)
	case w.BlockScale || w.Kind.BlockScaled():
		return renderBlockScale(w, k)
	}
	return renderDense(w, k)
}

// mmaOperands adds the operands every form shares: D in tensor memory, A
// (tensor memory or a shared-memory descriptor), B's descriptor, the
// instruction descriptor and enable-input-d, then sparse metadata for .sp.
func mmaOperands(w kw.Value, k *kernel) (name string, ops []operand) {
	name = tcgen05
	if w.WS {
		name += ".ws"
	}
	if w.Sparse {
		name += ".sp"
	}
	d := k.param("ptr addrspace(6)", "d")
	var a operand
	if w.ATMem {
		name, a = name+".tensor", k.param("ptr addrspace(6)", "atmem")
	} else {
		name, a = name+".shared", k.param("i64", "adesc")
	}
	ops = []operand{d, a, k.param("i64", "bdesc"), k.param("i32", "idesc"), k.param("i1", "enable_d")}
	if w.Sparse {
		ops = append(ops, k.param("ptr addrspace(6)", "spmeta"))
	}
	return name, ops
}

// renderDense renders f16, tf32, f8f6f4 and i8 without .ws.
func renderDense(w kw.Value, k *kernel) error {
	if w.ScaleVec != kw.ScaleDefault {
		return noSpelling("scale_vec", "not-for-kind", "no LLVM spelling for .scale_vec::%s on kind::%s", w.ScaleVec, w.Kind)
	}
	name, ops := mmaOperands(w, k)
	if w.ScaleInputAcc {
		name += ".scale_d"
		ops = append(ops, imm("i64", int64(w.ScaleInputD)))
	}
	if w.AShift {
		name += ".ashift"
	}
	ops = append(ops, imm("i32", denseKind[w.Kind]), imm("i32", int64(w.CTAGroup)), imm("i32", int64(w.CollectorA)))
	k.call("void", name, ops...)
	return nil
}

// renderWS renders tcgen05.mma.ws: cta_group::1 implied, collector b0.
func renderWS(w kw.Value, k *kernel) error {
	switch {
	case w.CTAGroup != 1:
		return noSpelling("ws", "cta-group-2", "no LLVM spelling for .ws with cta_group %d (the .ws intrinsics are cta_group::1 only)", w.CTAGroup)
	case w.BlockScale || w.Kind.BlockScaled():
		return noSpelling("ws", "block-scale", "no LLVM spelling for .ws with kind::%s (block scale)", w.Kind)
	case w.ScaleVec != kw.ScaleDefault || w.ScaleInputAcc || w.AShift:
		return noSpelling("ws", "scale-or-ashift", "no LLVM spelling for .ws with .scale_vec, scale-input-d or .ashift")
	case w.CollectorA != kw.Discard:
		return noSpelling("ws", "collector-a", "no LLVM spelling for .ws with collector::a::%s (.ws collects B: collector::bN)", w.CollectorA)
	}
	name, ops := mmaOperands(w, k)
	ops = append(ops, imm("i32", denseKind[w.Kind]), imm("i32", 0), imm("i32", int64(kw.Discard)))
	k.call("void", name, ops...)
	return nil
}

// renderBlockScale renders the block-scaled kinds: scale factors A and B in
// tensor memory, then cta_group and collector immargs.
func renderBlockScale(w kw.Value, k *kernel) error {
	switch {
	case !w.BlockScale:
		return noSpelling("block_scale", "kind-without", "no LLVM spelling for kind::%s without .block_scale", w.Kind)
	case !w.Kind.BlockScaled():
		return noSpelling("block_scale", "not-block-scaled-kind", "no LLVM spelling for .block_scale with kind::%s", w.Kind)
	case w.AShift || w.ScaleInputAcc:
		return noSpelling("block_scale", "ashift-or-scale-input", "no LLVM spelling for .block_scale with .ashift or scale-input-d")
	}
	suffix, err := intrinsic.BlockSuffix(w)
	if err != nil {
		return err
	}
	name, ops := mmaOperands(w, k)
	name += "." + w.Kind.String() + ".block_scale" + suffix
	ops = append(ops, k.param("ptr addrspace(6)", "scale_a"), k.param("ptr addrspace(6)", "scale_b"),
		imm("i32", int64(w.CTAGroup)), imm("i32", int64(w.CollectorA)))
	k.call("void", name, ops...)
	return nil
}
