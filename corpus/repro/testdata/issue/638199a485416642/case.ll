define ptx_kernel void @k_1(i32 %c1.a0, i32 %c1.b0, i32 %c1.c0, i32 %c1.c1, ptr %c1.out4) {
  %c1.r1 = call {i32, i32} @llvm.nvvm.mma.and.popc.m8n8k128.row.col.b1(i32 %c1.a0, i32 %c1.b0, i32 %c1.c0, i32 %c1.c1)
  store {i32, i32} %c1.r1, ptr %c1.out4
  ret void
}
