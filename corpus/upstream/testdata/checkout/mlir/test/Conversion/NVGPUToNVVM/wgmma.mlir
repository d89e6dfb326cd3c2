// Written for legalfuzz's test importer in the style of MLIR's NVGPU-to-NVVM tests.
// RUN: mlir-opt %s -convert-nvgpu-to-nvvm | FileCheck %s

func.func @warpgroup(%da: !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>, %db: !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>, %acc: !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>) {
  // CHECK: nvvm.wgmma.mma_async
  %r = nvgpu.warpgroup.mma %da, %db, %acc {transposeB}:
       !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>,
       !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>,
       !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
       ->
       !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
  return
}

func.func @tma(%map: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>, %bar: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>, %dst: memref<128x64xf16, 3>, %c0: index, %mask: i16) {
  nvgpu.tma.async.load %map[%c0, %c0, %c0], %bar[%c0] to %dst multicast_mask = %mask : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> memref<128x64xf16, 3>
  nvgpu.mbarrier.arrive %bar[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
  return
}
