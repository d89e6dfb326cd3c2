; Written for legalfuzz's test importer in the style of LLVM's NVPTX tests.
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_90a -mattr=+ptx80 | FileCheck %s

; CHECK-LABEL: mma_f16
define void @mma_f16(<2 x half> %a0, <2 x half> %a1, <2 x half> %a2, <2 x half> %a3, <2 x half> %b0, <2 x half> %b1, float %c0, float %c1, float %c2, float %c3) {
; CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  %r = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half> %a0, <2 x half> %a1, <2 x half> %a2, <2 x half> %a3, <2 x half> %b0, <2 x half> %b1, float %c0, float %c1, float %c2, float %c3)
  ret void
}

define void @mma_s8(i32 %a0, i32 %a1, i32 %b0, i32 %c0, i32 %c1, i32 %c2, i32 %c3) {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.mma.m16n8k16.row.col.satfinite.s8.u8(i32 %a0, i32 %a1, i32 %b0, i32 %c0, i32 %c1, i32 %c2, i32 %c3)
  ret void
}

define void @mma_sp(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, <2 x half> %b1, <2 x half> %c0, <2 x half> %c1, i32 %meta) {
  %r = call { <2 x half>, <2 x half> } @llvm.nvvm.mma.sp.ordered.metadata.m16n8k16.row.col.f16.f16(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, <2 x half> %b1, <2 x half> %c0, <2 x half> %c1, i32 %meta, i32 1)
  ret void
}

define void @mma_e3m2(i32 %a0) {
  %r = call { float, float, float, float } @llvm.nvvm.mma.m16n8k32.row.col.f32.e3m2.e3m2.f32(i32 %a0)
  ret void
}

define void @ldsm(ptr addrspace(3) %p, i32 %r0, i32 %r1) {
  %v = call i32 @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16(ptr addrspace(3) %p)
  call void @llvm.nvvm.stmatrix.sync.aligned.m8n8.x4.trans.b16(ptr addrspace(3) %p, i32 %r0, i32 %r1, i32 %r0, i32 %r1)
  ret void
}

define void @cpasync(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n) {
  tail call void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3) %d, ptr addrspace(1) %s)
  tail call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 %n)
  tail call void @llvm.nvvm.cp.async.ca.shared.global.4.s(ptr addrspace(3) %d, ptr addrspace(1) %s, i32 2)
  tail call void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3) %d, ptr addrspace(1) %s)
  tail call void @llvm.nvvm.cp.async.commit.group()
  ret void
}

declare void @llvm.nvvm.cp.async.commit.group()
