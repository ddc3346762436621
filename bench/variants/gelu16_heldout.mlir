// GELU (erf) rounded to bf16 or f16: the kernels that judge the one-piece
// 16-bit GELU (issue 23), written down before it was built. Tuning: only
// bench/graphs/medium_bias_gelu.mlir (bf16 bias + GELU, 2048 x 4096).
// Held out, one function each (opt-fuse FILE --function=NAME --bench):
//   f16_ragged     f16 GELU, 3000 x 3001 (ragged rows)
//   bf16_4d_bias   bf16 bias + GELU over 8 x 12 x 513 x 257 (4-D, ragged)
//   bf16_decode    bf16 GELU, 16 x 4096 (decode-size: launch-bound)
//   f16_geglu      f16 GELU(a) * b, 4096 x 2731 (two inputs)
//   bf16_large     bf16 GELU, 8192 x 8192 (memory-bound: must not regress)
//   bf16_gemm_gelu bf16 2048x1024 @ 1024x4096 + bias, GELU in the epilogue
//   f32_to_bf16    f32 GELU cast to bf16, 4096 x 2048 (demand through a cast)
func.func @f16_ragged(%x: tensor<3000x3001xf16>) -> tensor<3000x3001xf16> {
  %0 = fuse.gelu %x approximate = none : tensor<3000x3001xf16>
  return %0 : tensor<3000x3001xf16>
}
func.func @bf16_4d_bias(%x: tensor<8x12x513x257xbf16>, %b: tensor<257xbf16>) -> tensor<8x12x513x257xbf16> {
  %0 = fuse.add %x, %b : (tensor<8x12x513x257xbf16>, tensor<257xbf16>) -> tensor<8x12x513x257xbf16>
  %1 = fuse.gelu %0 approximate = none : tensor<8x12x513x257xbf16>
  return %1 : tensor<8x12x513x257xbf16>
}
func.func @bf16_decode(%x: tensor<16x4096xbf16>) -> tensor<16x4096xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<16x4096xbf16>
  return %0 : tensor<16x4096xbf16>
}
func.func @f16_geglu(%a: tensor<4096x2731xf16>, %g: tensor<4096x2731xf16>) -> tensor<4096x2731xf16> {
  %0 = fuse.gelu %a approximate = none : tensor<4096x2731xf16>
  %1 = fuse.mul %0, %g : (tensor<4096x2731xf16>, tensor<4096x2731xf16>) -> tensor<4096x2731xf16>
  return %1 : tensor<4096x2731xf16>
}
func.func @bf16_large(%x: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<8192x8192xbf16>
  return %0 : tensor<8192x8192xbf16>
}
func.func @bf16_gemm_gelu(%x: tensor<2048x1024xbf16>, %w: tensor<1024x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<2048x4096xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<2048x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<2048x4096xbf16>
  %1 = fuse.add %0, %b : (tensor<2048x4096xbf16>, tensor<4096xbf16>) -> tensor<2048x4096xbf16>
  %2 = fuse.gelu %1 approximate = none : tensor<2048x4096xbf16>
  return %2 : tensor<2048x4096xbf16>
}
func.func @f32_to_bf16(%x: tensor<4096x2048xf32>) -> tensor<4096x2048xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<4096x2048xf32>
  %1 = fuse.cast %0 : tensor<4096x2048xf32> to tensor<4096x2048xbf16>
  return %1 : tensor<4096x2048xbf16>
}
