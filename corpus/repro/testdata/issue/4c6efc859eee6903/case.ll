; legalfuzz: 1 case(s) for sm_80 (PTX 7.0)
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k_2(<2 x half> %c2.a0, <2 x half> %c2.a1, <2 x half> %c2.a2, <2 x half> %c2.a3, <2 x half> %c2.b0, <2 x half> %c2.b1, float %c2.c0, float %c2.c1, float %c2.c2, float %c2.c3, ptr %c2.out10) {
  %c2.r1 = call {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k16.row.col.f16.f32(<2 x half> %c2.a0, <2 x half> %c2.a1, <2 x half> %c2.a2, <2 x half> %c2.a3, <2 x half> %c2.b0, <2 x half> %c2.b1, float %c2.c0, float %c2.c1, float %c2.c2, float %c2.c3)
  store {<2 x half>, <2 x half>} %c2.r1, ptr %c2.out10
  ret void
}

declare {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k16.row.col.f16.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float)
