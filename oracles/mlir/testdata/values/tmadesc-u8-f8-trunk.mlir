module attributes {gpu.container_module} {
  llvm.func @host() {
    %0 = llvm.mlir.constant(1 : i32) : i32
    %1 = llvm.mlir.constant(1048576 : i64) : i64
    %2 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %3 = llvm.mlir.constant(0 : i64) : i64
    %4 = llvm.mlir.constant(256 : i64) : i64
    %5 = llvm.mlir.constant(512 : i64) : i64
    %6 = llvm.mlir.constant(1 : i64) : i64
    %7 = llvm.mlir.constant(32 : i64) : i64
    %8 = llvm.mlir.constant(9 : i64) : i64
    %9 = llvm.mlir.constant(16 : i64) : i64
    %10 = llvm.inttoptr %1 : i64 to !llvm.ptr
    %11 = llvm.insertvalue %10, %2[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.insertvalue %10, %11[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.insertvalue %3, %12[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.insertvalue %4, %13[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.insertvalue %5, %14[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %4, %15[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %6, %16[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = builtin.unrealized_conversion_cast %17 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<256x256xf8E5M2, strided<[512, 1]>>
    %cast = memref.cast %18 : memref<256x256xf8E5M2, strided<[512, 1]>> to memref<*xf8E5M2>
    %19 = builtin.unrealized_conversion_cast %cast : memref<*xf8E5M2> to !llvm.struct<(i64, ptr)>
    %20 = llvm.extractvalue %19[0] : !llvm.struct<(i64, ptr)> 
    %21 = llvm.extractvalue %19[1] : !llvm.struct<(i64, ptr)> 
    %22 = llvm.alloca %0 x !llvm.array<5 x i64> : (i32) -> !llvm.ptr
    llvm.store %7, %22 : i64, !llvm.ptr
    %23 = llvm.getelementptr %22[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %9, %23 : i64, !llvm.ptr
    %24 = llvm.call @mgpuTensorMapEncodeTiledMemref(%20, %21, %8, %3, %3, %3, %3, %22) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.return
  }
  gpu.module @m_7e5744aed3abd70b [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
    llvm.func @k_7e5744aed3abd70b(%arg0: i64, %arg1: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @__mbarrier : !llvm.ptr<3>
      %1 = llvm.mlir.constant(1024 : i64) : i64
      %2 = llvm.mlir.constant(4096 : i64) : i64
      %3 = llvm.inttoptr %2 : i64 to !llvm.ptr
      %4 = llvm.inttoptr %1 : i64 to !llvm.ptr<3>
      %5 = llvm.getelementptr %0[0, 0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, !llvm.array<1 x i64>
      %6 = llvm.addrspacecast %4 : !llvm.ptr<3> to !llvm.ptr<7>
      %7 = llvm.trunc %arg0 : i64 to i32
      %8 = llvm.trunc %arg1 : i64 to i32
      nvvm.cp.async.bulk.tensor.shared.cluster.global %6, %3, %5, box[%7, %8] : !llvm.ptr<7>, !llvm.ptr
      llvm.return
    }
  }
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
}

