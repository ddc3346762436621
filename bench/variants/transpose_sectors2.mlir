// A second held-out set for skewed transpose tiles (written 2026-12-04,
// before the rule it judges was built). The first set
// (transpose_sectors.mlir) showed 2-byte outputs no faster skewed (bf16
// 4099 x 3001 1.6% slower, f16 77 x 4099 13% slower) and 4- and 8-byte
// ones faster; the rule was then narrowed to outputs of 4 or 8 bytes.
// These judge that rule; none was timed before:
//   f32_3001x777     f32, output rows of 3001
//   i32_2001x1003    i32, output rows of 2001
//   sigmoid_f32      f32 1999 x 2500, sigmoid(x^T): an epilogue
//   heads_4d_f32     4 x 16 x 129 x 65 f32, the last two axes swapped:
//                    output rows of 129
//   decode_f32       33 x 4097 f32: output rows of 33 (decode-size)
//   i64_1001         i64 1001 x 1001
func.func @f32_3001x777(%x: tensor<3001x777xf32>) -> tensor<777x3001xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3001x777xf32> -> tensor<777x3001xf32>
  return %t : tensor<777x3001xf32>
}
func.func @i32_2001x1003(%x: tensor<2001x1003xi32>) -> tensor<1003x2001xi32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<2001x1003xi32> -> tensor<1003x2001xi32>
  return %t : tensor<1003x2001xi32>
}
func.func @sigmoid_f32(%x: tensor<1999x2500xf32>) -> tensor<2500x1999xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<1999x2500xf32> -> tensor<2500x1999xf32>
  %s = fuse.sigmoid %t : tensor<2500x1999xf32>
  return %s : tensor<2500x1999xf32>
}
func.func @heads_4d_f32(%x: tensor<4x16x129x65xf32>) -> tensor<4x16x65x129xf32> {
  %t = fuse.transpose %x permutation = [0, 1, 3, 2] : tensor<4x16x129x65xf32> -> tensor<4x16x65x129xf32>
  return %t : tensor<4x16x65x129xf32>
}
func.func @decode_f32(%x: tensor<33x4097xf32>) -> tensor<4097x33xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<33x4097xf32> -> tensor<4097x33xf32>
  return %t : tensor<4097x33xf32>
}
func.func @i64_1001(%x: tensor<1001x1001xi64>) -> tensor<1001x1001xi64> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<1001x1001xi64> -> tensor<1001x1001xi64>
  return %t : tensor<1001x1001xi64>
}
