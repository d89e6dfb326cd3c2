// Written for legalfuzz's test importer in the style of MLIR's NVGPU tests.
// RUN: mlir-opt %s | FileCheck %s

// CHECK-LABEL: func @mma
func.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // CHECK: nvgpu.mma.sync(%{{.*}}) {mmaShape = [16, 8, 8]}
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} :
    (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

func.func @mma_sp(%a: vector<4x4xi8>, %b: vector<4x4xi8>, %c: vector<2x2xi32>, %m: vector<2xi16>) -> vector<2x2xi32> {
  %d = nvgpu.mma.sp.sync(%a, %b, %c) metadata(%m) {mmaShape = [16, 8, 64], sparsitySelector = 1 : i32} :
    (vector<4x4xi8>, vector<4x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
  return %d : vector<2x2xi32>
}

func.func @mma_tf32(%a: vector<4x1xf32>, %b: vector<2x1xf32>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

func.func @mma_fnuz(%a: vector<4x4xf8E4M3FNUZ>, %b: vector<2x4xf8E4M3FNUZ>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xf8E4M3FNUZ>, vector<2x4xf8E4M3FNUZ>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

func.func @ldmatrix(%src: memref<?x?xf16, 3>, %i: index) {
  %l = nvgpu.ldmatrix %src[%i, %i] {numTiles = 4 : i32, transpose = true} :
    memref<?x?xf16, 3> -> vector<4x2xf16>
  return
}

func.func @copy(%dst: memref<2x7x5xf32, 3>, %src: memref<4x5xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %0 = nvgpu.device_async_copy %src[%c0, %c0], %dst[%c0, %c0, %c0], 4, %n {bypassL1} : memref<4x5xf32> to memref<2x7x5xf32, 3>
  %t = nvgpu.device_async_create_group %0
  nvgpu.device_async_wait %t {numGroups = 1 : i32}
  return
}
