// Written for legalfuzz's test importer in the style of MLIR's NVVM dialect tests.
// RUN: mlir-opt %s | FileCheck %s

llvm.func @nvvm_mma(%a0: vector<2xf16>, %a1: vector<2xf16>, %b0: vector<2xf16>, %c0: f32, %c1: f32, %c2: f32, %c3: f32) {
  // CHECK: nvvm.mma.sync
  %0 = nvvm.mma.sync A[%a0, %a1] B[%b0] C[%c0, %c1, %c2, %c3]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

llvm.func @nvvm_mma_s8(%a: i32, %b: i32, %c0: i32, %c1: i32) {
  %0 = nvvm.mma.sync A[%a] B[%b] C[%c0, %c1] {intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<u8>, shape = #nvvm.shape<m = 8, n = 8, k = 16>} : (i32, i32, i32) -> !llvm.struct<(i32, i32)>
  llvm.return
}

llvm.func @nvvm_mma_untyped(%a: i32, %b: i32, %c0: i32, %c1: i32) {
  %0 = nvvm.mma.sync A[%a] B[%b] C[%c0, %c1] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 8, n = 8, k = 16>} : (i32, i32, i32) -> !llvm.struct<(i32, i32)>
  llvm.return
}

llvm.func @nvvm_ldst(%p: !llvm.ptr<3>, %r0: i32, %r1: i32) {
  %0 = nvvm.ldmatrix %p {num = 2 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  nvvm.stmatrix %p, %r0, %r1 {layout = #nvvm.mma_layout<row>} : !llvm.ptr<3>, i32, i32
  llvm.return
}

llvm.func @nvvm_cp(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>) {
  nvvm.cp.async.shared.global %d, %s, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.commit.group
  nvvm.barrier0
  llvm.return
}

llvm.func @nvvm_wgmma(%da: i64, %db: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  %r = nvvm.wgmma.mma_async %da, %db, %acc,
      #nvvm.shape<m = 64, n = 8, k = 16>,
      D [<f32>, #nvvm.wgmma_scale_out<zero>],
      A [<bf16>, #nvvm.wgmma_scale_in<neg>, <col>],
      B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>]
      : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

llvm.func @nvvm_tma(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32, %o: i16) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x, %x, %x] im2col[%o] : !llvm.ptr<3>, !llvm.ptr
  llvm.return
}

llvm.func @nvvm_tcgen05(%d: !llvm.ptr<6>, %a: i64, %b: i64, %i: i32, %e: i1) {
  nvvm.tcgen05.mma %d, %a, %b, %i, %e {kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
  llvm.return
}
