module attributes {gpu.container_module} {
  gpu.module @m_6a91bd87cf434b30 [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
    gpu.func @k_6a91bd87cf434b30(%a: vector<1x4xi8>, %b: vector<1x4xui8>, %c: vector<1x2xi32>, %out: !llvm.ptr<1>) kernel {
      %v1 = "nvgpu.mma.sync"(%a, %b, %c) <{mmaShape = [8, 8, 16]}> : (vector<1x4xi8>, vector<1x4xui8>, vector<1x2xi32>) -> vector<1x2xi32>
      %v2 = vector.extract %v1[0, 0] : i32 from vector<1x2xi32>
      llvm.store %v2, %out : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
