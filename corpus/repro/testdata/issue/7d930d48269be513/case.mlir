module attributes {gpu.container_module} {
  gpu.module @m_78129d2bf5a2b496 [#nvvm.target<chip = "sm_120a", features = "+ptx87">] {
    gpu.func @k_78129d2bf5a2b496(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %b0: i32, %b1: i32, %c0: f32, %c1: f32, %c2: f32, %c3: f32, %scale_a: i32, %byte_id_a: i16, %thread_id_a: i16, %scale_b: i32, %byte_id_b: i16, %thread_id_b: i16, %out: !llvm.ptr<1>) kernel {
      %v1 = "nvvm.mma.block_scale"(%a0, %a1, %a2, %a3, %b0, %b1, %c0, %c1, %c2, %c3, %scale_a, %byte_id_a, %thread_id_a, %scale_b, %byte_id_b, %thread_id_b) <{blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<f16>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>, operandSegmentSizes = array<i32: 4, 2, 4, 1, 1, 1, 1, 1, 1>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, i32, i16, i16, i32, i16, i16) -> !llvm.struct<(f32, f32, f32, f32)>
      %v2 = llvm.extractvalue %v1[0] : !llvm.struct<(f32, f32, f32, f32)>
      llvm.store %v2, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
