// sm_80 (PTX 7.0)
llvm.func @nvvm_convert_f32x2_to_bf16x2(%a0: f32, %a1: f32, %a2: i32) {
  %r = "nvvm.convert.f32x2.to.bf16x2"(%a0, %a1, %a2) : (f32, f32, i32) -> (vector<2xbf16>)
  llvm.return
}

// sm_80 (PTX 7.0)
llvm.func @nvvm_cp_async_commit_group() {
  "nvvm.cp.async.commit.group"() : () -> ()
  llvm.return
}

// sm_80 (PTX 7.0)
llvm.func @nvvm_cp_async_shared_global(%a0: !llvm.ptr<3>, %a1: !llvm.ptr<1>, %a2: i32) {
  "nvvm.cp.async.shared.global"(%a0, %a1, %a2) <{modifier = #nvvm.load_cache_modifier<ca>, size = 0 : i32}> : (!llvm.ptr<3>, !llvm.ptr<1>, i32) -> ()
  llvm.return
}

// sm_80 (PTX 7.0)
llvm.func @nvvm_ldmatrix(%a0: !llvm.ptr<3>) {
  %r = "nvvm.ldmatrix"(%a0) <{eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 0 : i32, shape = #nvvm.ld_st_matrix_shape<m = 0, n = 0>}> : (!llvm.ptr<3>) -> (i1)
  llvm.return
}

// sm_80 (PTX 7.0)
llvm.func @nvvm_shfl_sync(%a0: i32, %a1: i32, %a2: i32, %a3: i32) {
  %r = "nvvm.shfl.sync"(%a0, %a1, %a2, %a3) <{kind = #nvvm.shfl_kind<bfly>}> : (i32, i32, i32, i32) -> (i32)
  llvm.return
}

// sm_100f (PTX 8.8)
llvm.func @nvvm_tcgen05_commit(%a0: !llvm.ptr, %a1: i16) {
  "nvvm.tcgen05.commit"(%a0, %a1) : (!llvm.ptr, i16) -> ()
  llvm.return
}

// sm_80 (PTX 7.0)
llvm.func @nvvm_wmma_mma(%a0: i1) {
  %r = "nvvm.wmma.mma"(%a0) <{eltypeA = #nvvm.mma_type<f16>, eltypeB = #nvvm.mma_type<f16>, k = 0 : i32, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<row>, m = 0 : i32, n = 0 : i32}> : (i1) -> (!llvm.struct<(f32)>)
  llvm.return
}

