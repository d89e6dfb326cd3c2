module attributes {gpu.container_module} {
  gpu.module @m_9ad02ca8399b8346 [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    gpu.func @k_9ad02ca8399b8346(%da: i64, %db: i64) kernel {
      %v1 = builtin.unrealized_conversion_cast %da : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x24xf16, 3>>
      %v2 = builtin.unrealized_conversion_cast %db : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<24x8xf16, 3>>
      %v3 = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>>
      %v4 = "nvgpu.warpgroup.mma"(%v1, %v2, %v3) : (!nvgpu.warpgroup.descriptor<tensor = memref<64x24xf16, 3>>, !nvgpu.warpgroup.descriptor<tensor = memref<24x8xf16, 3>>, !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>>) -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x8xf32>>
      gpu.return
    }
  }
}
