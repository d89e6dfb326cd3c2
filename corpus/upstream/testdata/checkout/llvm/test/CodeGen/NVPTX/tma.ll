; Written for legalfuzz's test importer in the style of LLVM's NVPTX tests.
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_100a -mattr=+ptx86 | FileCheck %s

define void @tma(ptr addrspace(7) %d, ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i32 %x1, i32 %x2, i16 %off, i16 %mc, i64 %ch) {
  tail call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d(ptr addrspace(7) %d, ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i32 %x1, i16 %mc, i64 %ch, i1 1, i1 0, i32 2)
  tail call void @llvm.nvvm.cp.async.bulk.tensor.g2s.im2col.w.3d(ptr addrspace(7) %d, ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i32 %x1, i32 %x2, i16 8, i16 4, i16 %mc, i64 %ch, i1 0, i1 1, i32 0)
  tail call void @llvm.nvvm.cp.async.bulk.tensor.s2g.tile.scatter4.2d(ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i32 %x1, i32 %x2, i32 %x0, i32 %x1, i64 %ch, i1 0)
  tail call void @llvm.nvvm.cp.async.bulk.tensor.prefetch.tile.3d(ptr %tmap, i32 %x0, i32 %x1, i32 %x2, i64 %ch, i1 1)
  tail call void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.tile.2d(ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i32 %x1, i64 %ch, i1 0)
  ret void
}

define void @tcgen05(ptr addrspace(6) %dt, ptr addrspace(6) %at, i64 %ad, i64 %bd, i32 %id, i1 %en, ptr addrspace(6) %sa, ptr addrspace(6) %sb) {
  call void @llvm.nvvm.tcgen05.mma.shared(ptr addrspace(6) %dt, i64 %ad, i64 %bd, i32 %id, i1 %en, i32 1, i32 2, i32 3)
  call void @llvm.nvvm.tcgen05.mma.tensor.scale_d.ashift(ptr addrspace(6) %dt, ptr addrspace(6) %at, i64 %bd, i32 %id, i1 %en, i64 5, i32 0, i32 1, i32 0)
  call void @llvm.nvvm.tcgen05.mma.shared.mxf4nvf4.block_scale.block16(ptr addrspace(6) %dt, i64 %ad, i64 %bd, i32 %id, i1 %en, ptr addrspace(6) %sa, ptr addrspace(6) %sb, i32 2, i32 0)
  call void @llvm.nvvm.tcgen05.mma.ws.shared(ptr addrspace(6) %dt, i64 %ad, i64 %bd, i32 %id, i1 %en, i32 3, i32 0, i32 0)
  call void @llvm.nvvm.tcgen05.mma.shared.disable_output_lane.cg1(ptr addrspace(6) %dt, i64 %ad, i64 %bd, i32 %id, i1 %en, <4 x i32> %l, i32 0, i32 0)
  call void @llvm.nvvm.tcgen05.commit.cg1(ptr addrspace(3) %bar)
  ret void
}

; LLVM 20's g2s: no cta_group operand.
define void @tma20(ptr addrspace(7) %d, ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i16 %mc, i64 %ch) {
  tail call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.1d(ptr addrspace(7) %d, ptr addrspace(3) %bar, ptr %tmap, i32 %x0, i16 %mc, i64 %ch, i1 0, i1 1)
  ret void
}
