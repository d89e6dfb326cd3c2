module attributes {gpu.container_module} {
  gpu.module @m_69f743aa1ae56fe0 [#nvvm.target<chip = "sm_90", features = "+ptx78">] {
    gpu.func @k_69f743aa1ae56fe0(%a: vector<2x1xf64>, %b: vector<1x1xf64>, %c: vector<2x2xf64>, %out: !llvm.ptr<1>) kernel {
      %v1 = "nvgpu.mma.sync"(%a, %b, %c) <{mmaShape = [16, 8, 4]}> : (vector<2x1xf64>, vector<1x1xf64>, vector<2x2xf64>) -> vector<2x2xf64>
      %v2 = vector.extract %v1[0, 0] : f64 from vector<2x2xf64>
      llvm.store %v2, %out : f64, !llvm.ptr<1>
      gpu.return
    }
  }
}
