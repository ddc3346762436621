// Transposes whose output rows do not start on 32-byte sectors (written
// 2026-12-04, before the skewed-tile change was built or timed). The
// tuning kernels are the first three; the rest are held out: no figure of
// theirs is looked at until the change is final.
// Tuning:
//   t_5001x3003_f32   bench/graphs/transpose_ragged_f32.mlir's shape
//   t_5004x3004_f32   16-byte, not 32-byte aligned output rows
//   t_5001x3004_f32   vector reads, 4-byte aligned output rows
// Held out:
//   h_4099x3001_bf16  bf16, odd on both sides
//   h_batched_f32     8 x 999 x 257 f32, the last two axes swapped
//   h_scale_exp_f32   3001 x 2049 f32, exp(x^T * 0.5): an epilogue
//   h_i64_3001x1999   i64 (32 x 32 tiles, 4-element sectors; f64, first
//                     written here, is not a fuse element type)
//   h_decode_f16      77 x 4099 f16, decode-size
//   h_bias_f32        3001 x 2049 f32, x^T + y (the epilogue reads an
//                     input: a control, the change leaves it as it was)
//   h_aligned_f32     5000 x 3000 f32 (sector-aligned output rows: a
//                     control, unchanged PTX)
func.func @t_5001x3003_f32(%x: tensor<5001x3003xf32>) -> tensor<3003x5001xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5001x3003xf32> -> tensor<3003x5001xf32>
  return %t : tensor<3003x5001xf32>
}
func.func @t_5004x3004_f32(%x: tensor<5004x3004xf32>) -> tensor<3004x5004xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5004x3004xf32> -> tensor<3004x5004xf32>
  return %t : tensor<3004x5004xf32>
}
func.func @t_5001x3004_f32(%x: tensor<5001x3004xf32>) -> tensor<3004x5001xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5001x3004xf32> -> tensor<3004x5001xf32>
  return %t : tensor<3004x5001xf32>
}
func.func @h_4099x3001_bf16(%x: tensor<4099x3001xbf16>) -> tensor<3001x4099xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4099x3001xbf16> -> tensor<3001x4099xbf16>
  return %t : tensor<3001x4099xbf16>
}
func.func @h_batched_f32(%x: tensor<8x999x257xf32>) -> tensor<8x257x999xf32> {
  %t = fuse.transpose %x permutation = [0, 2, 1] : tensor<8x999x257xf32> -> tensor<8x257x999xf32>
  return %t : tensor<8x257x999xf32>
}
func.func @h_scale_exp_f32(%x: tensor<2049x3001xf32>) -> tensor<3001x2049xf32> {
  %c = fuse.constant dense<0.5> : tensor<f32>
  %t = fuse.transpose %x permutation = [1, 0] : tensor<2049x3001xf32> -> tensor<3001x2049xf32>
  %s = fuse.mul %t, %c : (tensor<3001x2049xf32>, tensor<f32>) -> tensor<3001x2049xf32>
  %e = fuse.exp %s : tensor<3001x2049xf32>
  return %e : tensor<3001x2049xf32>
}
func.func @h_i64_3001x1999(%x: tensor<3001x1999xi64>) -> tensor<1999x3001xi64> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3001x1999xi64> -> tensor<1999x3001xi64>
  return %t : tensor<1999x3001xi64>
}
func.func @h_decode_f16(%x: tensor<77x4099xf16>) -> tensor<4099x77xf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<77x4099xf16> -> tensor<4099x77xf16>
  return %t : tensor<4099x77xf16>
}
func.func @h_bias_f32(%x: tensor<2049x3001xf32>, %y: tensor<3001x2049xf32>) -> tensor<3001x2049xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<2049x3001xf32> -> tensor<3001x2049xf32>
  %s = fuse.add %t, %y : (tensor<3001x2049xf32>, tensor<3001x2049xf32>) -> tensor<3001x2049xf32>
  return %s : tensor<3001x2049xf32>
}
func.func @h_aligned_f32(%x: tensor<5000x3000xf32>) -> tensor<3000x5000xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5000x3000xf32> -> tensor<3000x5000xf32>
  return %t : tensor<3000x5000xf32>
}
