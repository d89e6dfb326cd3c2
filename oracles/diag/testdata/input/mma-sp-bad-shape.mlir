func.func @k_9(%arg0: vector<4x2xf16>, %arg1: vector<2x2xf16>, %arg2: vector<2x2xf32>, %meta: vector<2xi16>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sp.sync (%arg0, %arg1, %arg2) metadata(%meta) {mmaShape = [16, 8, 64]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
