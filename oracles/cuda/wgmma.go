package cuda

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

// The wgmma check runs wgmma.mma_async.m64n8k16.f32.f16.f16 with one
// matrix descriptor as both A (64x16, K-major) and B (8x16, K-major), over
// shared memory whose every f16 is a small integer chosen by its address
// (WGMMAValue), so the product is exact in f32 and predictable from the
// descriptor alone. The K-major layout is matdesc's reading
// (Value.KMajorOffset), for row r and column k of an operand:
//
//	no swizzle: start + (r%8)*16 + (r/8)*SBO + (k%8)*2 + (k/8)*LBO
//	32B:  swizzle32(start  + (r%8)*32  + (r/8)*SBO + 2k)
//	64B:  swizzle64(start  + (r%8)*64  + (r/8)*SBO + 2k)
//	128B: swizzle128(start + (r%8)*128 + (r/8)*SBO + 2k)
//
// with start, LBO and SBO as the descriptor encodes them (16-byte units),
// and the swizzles of SwizzleAddr on absolute shared addresses. A swizzled
// descriptor with a base offset is not predicted: on an H200 the hardware
// used the field, and this reading has no place for it (docs/gpu-runs.md);
// without a swizzle the hardware ignored it, as the prediction does.
const (
	WGMMAM       = 64
	WGMMAN       = 8
	WGMMAK       = 16
	wgmmaThreads = 128
)

// WGMMAValue is the f16 value the check stores at shared address a (even):
// an integer in [-8, 8].
func WGMMAValue(a uint32) int { return int((a>>1*7+3)%17) - 8 }

// wgmmaAddr is the shared address of element (r, k) of an operand read
// through the descriptor: matdesc's K-major layout, swizzled.
func wgmmaAddr(d matdesc.Value, r, k int) uint64 {
	a := d.KMajorOffset(r, 2*k)
	switch d.Swizzle & 3 {
	case 1:
		return SwizzleAddr(tmadesc.Swizzle128B, a)
	case 2:
		return SwizzleAddr(tmadesc.Swizzle64B, a)
	case 3:
		return SwizzleAddr(tmadesc.Swizzle32B, a)
	}
	return a
}

// WGMMAFragments predicts each thread's four accumulator registers after
// the check's wgmma, with shared memory filled over [lo, hi): thread t of
// the warpgroup (warp w = t/32, lane l = t%32) holds D[16w + l/4 + 8*(i/2)]
// [2*(l%4) + i%2] in register i. An operand element outside [lo, hi) has
// no prediction.
func WGMMAFragments(d matdesc.Value, lo, hi uint32) ([wgmmaThreads][4]float32, error) {
	var frag [wgmmaThreads][4]float32
	if d.Format != matdesc.WGMMA {
		return frag, fmt.Errorf("%w for %s descriptors", ErrNotPredicted, d.Format)
	}
	if d.Swizzle&3 != 0 && d.BaseOffset != 0 {
		return frag, fmt.Errorf("%w for a swizzled descriptor with base offset %d", ErrNotPredicted, d.BaseOffset)
	}
	var a [WGMMAM][WGMMAK]int
	for r := range WGMMAM {
		for k := range WGMMAK {
			addr := wgmmaAddr(d, r, k)
			if addr < uint64(lo) || addr+2 > uint64(hi) {
				return frag, fmt.Errorf("%w: element (%d, %d) is read at %#x, outside the filled shared memory [%#x, %#x)",
					ErrNotPredicted, r, k, addr, lo, hi)
			}
			a[r][k] = WGMMAValue(uint32(addr))
		}
	}
	// B is the same descriptor: its rows are A's first eight.
	for t := range wgmmaThreads {
		w, l := t/32, t%32
		for i := range 4 {
			m, n := 16*w+l/4+8*(i/2), 2*(l%4)+i%2
			sum := 0
			for k := range WGMMAK {
				sum += a[m][k] * a[n][k]
			}
			frag[t][i] = float32(sum)
		}
	}
	return frag, nil
}

// Layout of the wgmma check's buffers.
const (
	wgmmaJobBytes = 16   // descriptor (u64), uniform (u32), pad
	wgmmaOutBytes = 4096 // per block: lo, hi (u32 each), pad to 16, then 128 x 4 f32
	wgmmaFragOff  = 16
)

// WGMMAPTX is the wgmma check's kernel, for sm_90a. Parameters: jobs,
// out, and the bytes of dynamic shared memory to fill.
func WGMMAPTX() string {
	var k strings.Builder
	w := func(s string) { k.WriteString("\t" + s + "\n") }
	k.WriteString(".version 8.0\n.target sm_90a\n.address_size 64\n\n.extern .shared .align 1024 .b8 dsmem[];\n\n")
	k.WriteString(".visible .entry wgmma_desc(\n\t.param .u64 jobs_param,\n\t.param .u64 out_param,\n\t.param .u32 bytes_param\n)\n{\n")
	for _, l := range []string{
		".reg .pred %p<4>;", ".reg .b16 %h<2>;", ".reg .b32 %r<16>;", ".reg .b64 %rd<16>;", ".reg .f32 %f<8>;",
		"ld.param.u64 %rd1, [jobs_param];", "cvta.to.global.u64 %rd1, %rd1;",
		"ld.param.u64 %rd2, [out_param];", "cvta.to.global.u64 %rd2, %rd2;",
		"ld.param.u32 %r1, [bytes_param];", "mov.u32 %r2, %ctaid.x;", "mov.u32 %r3, %tid.x;",
		"mov.u32 %r4, dsmem; // lo", "add.u32 %r5, %r4, %r1; // hi",
		"shl.b32 %r6, %r3, 1;", "add.u32 %r6, %r6, %r4;",
	} {
		w(l)
	}
	k.WriteString("FILL:\n")
	for _, l := range []string{
		"setp.ge.u32 %p1, %r6, %r5;", "@%p1 bra FILLED;",
		"shr.u32 %r7, %r6, 1; // WGMMAValue", "mad.lo.u32 %r7, %r7, 7, 3;", "rem.u32 %r7, %r7, 17;",
		"sub.s32 %r7, %r7, 8;", "cvt.rn.f16.s32 %h1, %r7;", "st.shared.b16 [%r6], %h1;",
		fmt.Sprintf("add.u32 %%r6, %%r6, %d;", 2*wgmmaThreads), "bra.uni FILL;",
	} {
		w(l)
	}
	k.WriteString("FILLED:\n")
	for _, l := range []string{
		"fence.proxy.async.shared::cta;", "bar.sync 0;",
		fmt.Sprintf("mul.wide.u32 %%rd3, %%r2, %d;", wgmmaJobBytes), "add.u64 %rd4, %rd1, %rd3;",
		"ld.global.u64 %rd5, [%rd4];", "ld.global.u32 %r8, [%rd4+8];", "setp.ne.u32 %p2, %r8, 0;",
		"@%p2 bra UNIFORM;", "cvt.u64.u32 %rd6, %r3;", "xor.b64 %rd5, %rd5, %rd6; // a different descriptor per thread",
	} {
		w(l)
	}
	k.WriteString("UNIFORM:\n")
	for _, l := range []string{
		"mov.f32 %f1, 0f00000000;", "mov.f32 %f2, 0f00000000;", "mov.f32 %f3, 0f00000000;", "mov.f32 %f4, 0f00000000;",
		"setp.ne.b32 %p3, 0, 0; // scale-d false: D = A*B",
		"wgmma.fence.sync.aligned;",
		"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd5, %rd5, %p3, 1, 1, 0, 0;",
		"wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
		fmt.Sprintf("mul.wide.u32 %%rd7, %%r2, %d;", wgmmaOutBytes), "add.u64 %rd8, %rd2, %rd7;",
		"setp.eq.u32 %p1, %r3, 0;", "@%p1 st.global.u32 [%rd8], %r4;", "@%p1 st.global.u32 [%rd8+4], %r5;",
		"mul.wide.u32 %rd9, %r3, 16;", "add.u64 %rd10, %rd8, %rd9;",
		fmt.Sprintf("st.global.v4.f32 [%%rd10+%d], {%%f1, %%f2, %%f3, %%f4};", wgmmaFragOff),
		"ret;",
	} {
		w(l)
	}
	k.WriteString("}\n")
	return k.String()
}
