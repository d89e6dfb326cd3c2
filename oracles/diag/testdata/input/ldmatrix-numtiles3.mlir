func.func @k_77(%src: memref<128x128xf16, 3>) -> vector<3x2xf16> {
  %c0 = arith.constant 0 : index
  %v = nvgpu.ldmatrix %src[%c0, %c0] {numTiles = 3 : i32, transpose = false} : memref<128x128xf16, 3> -> vector<3x2xf16>
  return %v : vector<3x2xf16>
}
