module attributes {gpu.container_module} {
  gpu.module @m_ab72aeab623b247b [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
    gpu.func @k_ab72aeab623b247b(%a: vector<4x4xf8E4M3FN>, %b: vector<4x4xf8E4M3FN>, %c: vector<2x2xf32>, %out: !llvm.ptr<1>, %meta: vector<2xi16>) kernel {
      %v1 = nvgpu.mma.sp.sync(%a, %b, %c) metadata(%meta) {mmaShape = [16, 8, 64], sparsitySelector = 0 : i32} : (vector<4x4xf8E4M3FN>, vector<4x4xf8E4M3FN>, vector<2x2xf32>) -> vector<2x2xf32>
      %v2 = vector.extract %v1[0, 0] : f32 from vector<2x2xf32>
      llvm.store %v2, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
