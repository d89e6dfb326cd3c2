module attributes {gpu.container_module} {
  gpu.module @m_7ef875b95436f25b [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    gpu.func @k_7ef875b95436f25b(%da: i64, %db: i64) kernel {
      %v1 = builtin.unrealized_conversion_cast %da : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x32xf8E4M3FN, 3>>
      %v2 = builtin.unrealized_conversion_cast %db : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<32x248xf8E4M3FN, 3>>
      %v3 = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x248xf16>>
      %v4 = nvgpu.warpgroup.mma %v1, %v2, %v3 : !nvgpu.warpgroup.descriptor<tensor = memref<64x32xf8E4M3FN, 3>>, !nvgpu.warpgroup.descriptor<tensor = memref<32x248xf8E4M3FN, 3>>, !nvgpu.warpgroup.accumulator<fragmented = vector<64x248xf16>> -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x248xf16>>
      gpu.return
    }
  }
}
