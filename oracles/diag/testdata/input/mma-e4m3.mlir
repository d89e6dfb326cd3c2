module attributes {gpu.container_module} {
  gpu.module @m_b6e0410f7ad443ca [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
    gpu.func @k_b6e0410f7ad443ca(%a: vector<4x4xf8E4M3FN>, %b: vector<2x4xf8E4M3FN>, %c: vector<2x2xf32>, %out: !llvm.ptr<1>) kernel {
      %v1 = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xf8E4M3FN>, vector<2x4xf8E4M3FN>, vector<2x2xf32>) -> vector<2x2xf32>
      %v2 = vector.extract %v1[0, 0] : f32 from vector<2x2xf32>
      llvm.store %v2, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
