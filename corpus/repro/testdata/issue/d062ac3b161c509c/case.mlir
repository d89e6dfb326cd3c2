module attributes {gpu.container_module} {
  gpu.module @m_3886b6c39b80eab3 [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
    gpu.func @k_3886b6c39b80eab3(%a: vector<2x4xi8>, %b: vector<1x4xi8>, %c: vector<2x2xi8>, %out: !llvm.ptr<1>) kernel {
      %v1 = "nvgpu.mma.sync"(%a, %b, %c) <{mmaShape = [16, 8, 16]}> : (vector<2x4xi8>, vector<1x4xi8>, vector<2x2xi8>) -> vector<2x2xf16>
      %v2 = vector.extract %v1[0, 0] : f16 from vector<2x2xf16>
      llvm.store %v2, %out : f16, !llvm.ptr<1>
      gpu.return
    }
  }
}
