// Loop kernels whose smaller inputs are broadcast into rows that end inside
// a vector (written 2026-12-04, before the change that reads such inputs
// from the vector's first index plus one row carry instead of dividing
// every lane's index). Tuning: gelu16_heldout.mlir's bf16_4d_bias (bf16
// bias + GELU over 8 x 12 x 513 x 257). Held out, one function each, for
// opt-fuse FILE --function=NAME --bench:
//   f16_4d_mask    f16 scale and mask add, 4 x 16 x 300 x 300, the mask
//                  1 x 1 x 300 x 300 (two broadcast dims read)
//   f32_scale_bias f32 x * scale + bias, 5000 x 999 (vectors of 4)
//   bf16_column    bf16 x - column, 4097 x 1001, the column 4097 x 1 (the
//                  inner dimension broadcast, the outer one read)
//   bf16_decode    bf16 bias + SiLU, 3 x 4095 (decode-size)
//   f16_3d_mid     f16 x * w, 7 x 1023 x 513, w 1 x 1023 x 1 (a middle
//                  dimension read)
//   f32_inner3     f32 x * w, 1000000 x 3, w 3 (rows shorter than a
//                  vector: the lane-by-lane path stays)
func.func @f16_4d_mask(%x: tensor<4x16x300x300xf16>, %m: tensor<1x1x300x300xf16>) -> tensor<4x16x300x300xf16> {
  %s = fuse.constant dense<0.125> : tensor<f16>
  %0 = fuse.mul %x, %s : (tensor<4x16x300x300xf16>, tensor<f16>) -> tensor<4x16x300x300xf16>
  %1 = fuse.add %0, %m : (tensor<4x16x300x300xf16>, tensor<1x1x300x300xf16>) -> tensor<4x16x300x300xf16>
  return %1 : tensor<4x16x300x300xf16>
}
func.func @f32_scale_bias(%x: tensor<5000x999xf32>, %s: tensor<999xf32>, %b: tensor<999xf32>) -> tensor<5000x999xf32> {
  %0 = fuse.mul %x, %s : (tensor<5000x999xf32>, tensor<999xf32>) -> tensor<5000x999xf32>
  %1 = fuse.add %0, %b : (tensor<5000x999xf32>, tensor<999xf32>) -> tensor<5000x999xf32>
  return %1 : tensor<5000x999xf32>
}
func.func @bf16_column(%x: tensor<4097x1001xbf16>, %c: tensor<4097x1xbf16>) -> tensor<4097x1001xbf16> {
  %0 = fuse.sub %x, %c : (tensor<4097x1001xbf16>, tensor<4097x1xbf16>) -> tensor<4097x1001xbf16>
  return %0 : tensor<4097x1001xbf16>
}
func.func @bf16_decode(%x: tensor<3x4095xbf16>, %b: tensor<4095xbf16>) -> tensor<3x4095xbf16> {
  %0 = fuse.add %x, %b : (tensor<3x4095xbf16>, tensor<4095xbf16>) -> tensor<3x4095xbf16>
  %1 = fuse.silu %0 : tensor<3x4095xbf16>
  return %1 : tensor<3x4095xbf16>
}
func.func @f16_3d_mid(%x: tensor<7x1023x513xf16>, %w: tensor<1x1023x1xf16>) -> tensor<7x1023x513xf16> {
  %0 = fuse.mul %x, %w : (tensor<7x1023x513xf16>, tensor<1x1023x1xf16>) -> tensor<7x1023x513xf16>
  return %0 : tensor<7x1023x513xf16>
}
func.func @f32_inner3(%x: tensor<1000000x3xf32>, %w: tensor<3xf32>) -> tensor<1000000x3xf32> {
  %0 = fuse.mul %x, %w : (tensor<1000000x3xf32>, tensor<3xf32>) -> tensor<1000000x3xf32>
  return %0 : tensor<1000000x3xf32>
}
