package ptx

import (
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
)

func init() { register(matdesc.Name, renderMatDesc) }

// renderMatDesc uses the descriptor as the A and B descriptors of the
// instruction its format belongs to: a wgmma.mma_async m64n8k16 f32.f16.f16
// between wgmma.fence and wait_group for a wgmma descriptor, a
// tcgen05.mma.cta_group::1.kind::f16 for a tcgen05 one. The 64-bit word is a
// register constant (mov.b64). A descriptor that is not uniform across the
// warpgroup is xor-ed with the thread index, so every thread but thread 0
// holds a different word, as the value says. ptxas sees the word only as a
// constant: its fields are checked, if at all, when the instruction runs.
func renderMatDesc(v matdesc.Value, k *kernel) error {
	desc := k.value(b64, v.Raw())
	if !v.Uniform {
		tid, wide := k.reg(b32), k.reg(b64)
		k.emit("mov.u32 %s, %%tid.x;", tid)
		k.emit("cvt.u64.u32 %s, %s;", wide, tid)
		k.emit("xor.b64 %s, %s, %s;", desc, desc, wide)
	}
	if v.Format == matdesc.TCGen05 {
		d, idesc, en := k.zero(b32), k.zero(b32), k.zero(pred)
		k.emit("tcgen05.mma.cta_group::1.kind::f16 [%s], %s, %s, %s, %s;", d, desc, desc, idesc, en)
		return nil
	}
	acc := fragment(k, f32, 4)
	scaleD := k.zero(pred)
	k.emit("wgmma.fence.sync.aligned;")
	k.emit("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %s, %s, %s, 1, 1, 0, 0;", acc, desc, desc, scaleD)
	k.emit("wgmma.commit_group.sync.aligned;")
	k.emit("wgmma.wait_group.sync.aligned 0;")
	return nil
}
