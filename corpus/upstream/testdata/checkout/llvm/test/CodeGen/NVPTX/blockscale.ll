; Written for legalfuzz's test importer in the style of LLVM's NVPTX tests.
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_120a -mattr=+ptx87 | FileCheck %s

define void @bs(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, float %c0, float %c1, float %c2, float %c3, i32 %sa, i16 %ba, i16 %ta, i32 %sb, i16 %bb, i16 %tb) {
  %r = call { float, float, float, float } @llvm.nvvm.mma.block.scale.m16n8k32.row.col.mxf8f6f4.scale.1x.f32.e4m3.e5m2.f32.ue8m0(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, float %c0, float %c1, float %c2, float %c3, i32 %sa, i16 %ba, i16 %ta, i32 %sb, i16 %bb, i16 %tb)
  ret void
}
