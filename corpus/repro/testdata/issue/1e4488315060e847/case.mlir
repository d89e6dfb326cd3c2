module attributes {gpu.container_module} {
  gpu.module @m_d6aa86a28e7d3876 [#nvvm.target<chip = "sm_100f", features = "+ptx88">] {
    gpu.func @k_d6aa86a28e7d3876(%a: vector<2x4xf8E4M3FN>, %b: vector<1x4xf8E4M3FN>, %c: vector<2x2xf32>, %out: !llvm.ptr<1>) kernel {
      %v1 = "nvgpu.mma.sync"(%a, %b, %c) <{mmaShape = [16, 8, 16]}> : (vector<2x4xf8E4M3FN>, vector<1x4xf8E4M3FN>, vector<2x2xf32>) -> vector<2x2xf32>
      %v2 = vector.extract %v1[0, 0] : f32 from vector<2x2xf32>
      llvm.store %v2, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
