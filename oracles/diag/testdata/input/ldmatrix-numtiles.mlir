func.func @case_ab12(%src: memref<128x128xf16, 3>) -> vector<4x2xf16> {
  %c0 = arith.constant 0 : index
  %v = nvgpu.ldmatrix %src[%c0, %c0] {numTiles = 3 : i32, transpose = false} : memref<128x128xf16, 3> -> vector<4x2xf16>
  return %v : vector<4x2xf16>
}
