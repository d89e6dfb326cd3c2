module attributes {gpu.container_module} {
  gpu.module @m_1dd036475266362b [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
    gpu.func @k_1dd036475266362b(%r: i32) kernel {
      %v1 = llvm.mlir.constant(1 : i64) : i64
      %v2 = llvm.inttoptr %v1 : i64 to !llvm.ptr<3>
      "nvvm.stmatrix"(%v2, %r) <{layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>}> : (!llvm.ptr<3>, i32) -> ()
      gpu.return
    }
  }
}
