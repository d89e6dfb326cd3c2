module attributes {gpu.container_module} {
  llvm.func @host() {
    %0 = llvm.mlir.constant(1048576 : i64) : i64
    %1 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %2 = llvm.mlir.constant(0 : i64) : i64
    %3 = llvm.mlir.constant(256 : i64) : i64
    %4 = llvm.mlir.constant(1 : i64) : i64
    %5 = llvm.mlir.constant(32 : index) : i64
    %6 = llvm.mlir.constant(2 : i32) : i64
    %7 = llvm.mlir.constant(3 : i32) : i64
    %8 = llvm.mlir.constant(1 : i32) : i64
    %9 = llvm.mlir.constant(0 : i32) : i64
    %10 = llvm.mlir.constant(5 : i32) : i64
    %11 = llvm.mlir.constant(6 : i32) : i64
    %12 = llvm.mlir.constant(64 : index) : i64
    %13 = llvm.inttoptr %0 : i64 to !llvm.ptr
    %14 = llvm.insertvalue %13, %1[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.insertvalue %13, %14[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %2, %15[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %3, %16[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %3, %17[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %3, %18[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %4, %19[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = builtin.unrealized_conversion_cast %20 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<256x256xf16, strided<[256, 1]>>
    %cast = memref.cast %21 : memref<256x256xf16, strided<[256, 1]>> to memref<*xf16>
    %22 = builtin.unrealized_conversion_cast %cast : memref<*xf16> to !llvm.struct<(i64, ptr)>
    %23 = llvm.extractvalue %22[0] : !llvm.struct<(i64, ptr)> 
    %24 = llvm.extractvalue %22[1] : !llvm.struct<(i64, ptr)> 
    %25 = llvm.alloca %10 x i64 : (i64) -> !llvm.ptr
    llvm.store %5, %25 : i64, !llvm.ptr
    %26 = llvm.getelementptr %25[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %12, %26 : i64, !llvm.ptr
    %27 = llvm.call @mgpuTensorMapEncodeTiledMemref(%23, %24, %11, %9, %7, %6, %8, %25) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.return
  }
  gpu.module @m_6d412a3f4007ee17 [#nvvm.target<chip = "sm_90", features = "+ptx80">]  {
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
    llvm.func @k_6d412a3f4007ee17(%arg0: i64, %arg1: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @__mbarrier : !llvm.ptr<3>
      %1 = llvm.mlir.constant(1024 : i64) : i64
      %2 = llvm.mlir.constant(4096 : i64) : i64
      %3 = llvm.inttoptr %2 : i64 to !llvm.ptr
      %4 = llvm.inttoptr %1 : i64 to !llvm.ptr<3>
      %5 = llvm.getelementptr %0[0, 0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, !llvm.array<1 x i64>
      %6 = llvm.trunc %arg0 : i64 to i32
      %7 = llvm.trunc %arg1 : i64 to i32
      llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$2,$3} ], [$4];", "r,l,r,r,r" %4, %3, %6, %7, %5 : (!llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> ()
      llvm.return
    }
  }
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
}

