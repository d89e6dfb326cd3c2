module attributes {gpu.container_module} {
  func.func @host() {
    %v1 = llvm.mlir.constant(0 : i64) : i64
    %v2 = llvm.inttoptr %v1 : i64 to !llvm.ptr
    %v3 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v4 = llvm.insertvalue %v2, %v3[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v5 = llvm.insertvalue %v2, %v4[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v6 = llvm.mlir.constant(0 : i64) : i64
    %v7 = llvm.insertvalue %v6, %v5[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v8 = llvm.mlir.constant(1 : i64) : i64
    %v9 = llvm.insertvalue %v8, %v7[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v10 = llvm.mlir.constant(16 : i64) : i64
    %v11 = llvm.insertvalue %v10, %v9[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v12 = llvm.mlir.constant(1 : i64) : i64
    %v13 = llvm.insertvalue %v12, %v11[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v14 = llvm.mlir.constant(1 : i64) : i64
    %v15 = llvm.insertvalue %v14, %v13[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %v16 = builtin.unrealized_conversion_cast %v15 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<1x1xui8, strided<[16, 1]>>
    %v17 = memref.cast %v16 : memref<1x1xui8, strided<[16, 1]>> to memref<*xui8>
    %v18 = arith.constant 1 : index
    %v19 = arith.constant 16 : index
    %v20 = nvgpu.tma.create.descriptor %v17 box[%v18, %v19] : memref<*xui8> -> !nvgpu.tensormap.descriptor<tensor = memref<1x16xui8, 3>, swizzle = none, l2promo = none, oob = nan, interleave = none>
    return
  }
  gpu.module @m_8d9a104fffbc9abf [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @k_8d9a104fffbc9abf(%i: index) kernel {
      %v1 = llvm.mlir.constant(0 : i64) : i64
      %v2 = llvm.inttoptr %v1 : i64 to !llvm.ptr
      %v3 = builtin.unrealized_conversion_cast %v2 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x16xui8, 3>, swizzle = none, l2promo = none, oob = nan, interleave = none>
      %v4 = llvm.mlir.constant(0 : i64) : i64
      %v5 = llvm.inttoptr %v4 : i64 to !llvm.ptr<3>
      %v6 = llvm.mlir.undef : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v7 = llvm.insertvalue %v5, %v6[0] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v8 = llvm.insertvalue %v5, %v7[1] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v9 = llvm.mlir.constant(0 : i64) : i64
      %v10 = llvm.insertvalue %v9, %v8[2] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v11 = llvm.mlir.constant(1 : i64) : i64
      %v12 = llvm.insertvalue %v11, %v10[3, 0] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v13 = llvm.mlir.constant(16 : i64) : i64
      %v14 = llvm.insertvalue %v13, %v12[4, 0] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v15 = llvm.mlir.constant(16 : i64) : i64
      %v16 = llvm.insertvalue %v15, %v14[3, 1] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v17 = llvm.mlir.constant(1 : i64) : i64
      %v18 = llvm.insertvalue %v17, %v16[4, 1] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
      %v19 = builtin.unrealized_conversion_cast %v18 : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)> to memref<1x16xui8, 3>
      %v20 = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
      %v21 = arith.constant 0 : index
      nvgpu.tma.async.load %v3[%i, %i], %v20[%v21] to %v19 : !nvgpu.tensormap.descriptor<tensor = memref<1x16xui8, 3>, swizzle = none, l2promo = none, oob = nan, interleave = none>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> memref<1x16xui8, 3>
      gpu.return
    }
  }
}
