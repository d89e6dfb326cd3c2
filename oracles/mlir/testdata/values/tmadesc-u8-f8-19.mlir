module attributes {gpu.container_module} {
  llvm.func @host() {
    %0 = llvm.mlir.constant(1048576 : i64) : i64
    %1 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %2 = llvm.mlir.constant(0 : i64) : i64
    %3 = llvm.mlir.constant(256 : i64) : i64
    %4 = llvm.mlir.constant(512 : i64) : i64
    %5 = llvm.mlir.constant(1 : i64) : i64
    %6 = llvm.mlir.constant(32 : index) : i64
    %7 = llvm.mlir.constant(0 : i32) : i64
    %8 = llvm.mlir.constant(5 : i32) : i64
    %9 = llvm.mlir.constant(9 : i32) : i64
    %10 = llvm.mlir.constant(16 : index) : i64
    %11 = llvm.inttoptr %0 : i64 to !llvm.ptr
    %12 = llvm.insertvalue %11, %1[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.insertvalue %11, %12[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.insertvalue %2, %13[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.insertvalue %3, %14[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %4, %15[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %3, %16[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %5, %17[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = builtin.unrealized_conversion_cast %18 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<256x256xf8E5M2, strided<[512, 1]>>
    %cast = memref.cast %19 : memref<256x256xf8E5M2, strided<[512, 1]>> to memref<*xf8E5M2>
    %20 = builtin.unrealized_conversion_cast %cast : memref<*xf8E5M2> to !llvm.struct<(i64, ptr)>
    %21 = llvm.extractvalue %20[0] : !llvm.struct<(i64, ptr)> 
    %22 = llvm.extractvalue %20[1] : !llvm.struct<(i64, ptr)> 
    %23 = llvm.alloca %8 x i64 : (i64) -> !llvm.ptr
    llvm.store %6, %23 : i64, !llvm.ptr
    %24 = llvm.getelementptr %23[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %10, %24 : i64, !llvm.ptr
    %25 = llvm.call @mgpuTensorMapEncodeTiledMemref(%21, %22, %9, %7, %7, %7, %7, %23) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.return
  }
  gpu.module @m_7e5744aed3abd70b [#nvvm.target<chip = "sm_90", features = "+ptx80">]  {
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
    llvm.func @k_7e5744aed3abd70b(%arg0: i64, %arg1: i64) attributes {gpu.kernel, nvvm.kernel} {
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

