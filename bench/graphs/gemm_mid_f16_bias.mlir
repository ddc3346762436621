// GEMM, tuned: f16 768 rows by a 4096x2048 weight with a bias (64 tiles
// of 128x256, 192 of 64x128).
func.func @gemm_mid_f16_bias(%x: tensor<768x4096xf16>, %w: tensor<4096x2048xf16>, %b: tensor<2048xf16>) -> tensor<768x2048xf16> {
  %0 = fuse.matmul %x, %w : (tensor<768x4096xf16>, tensor<4096x2048xf16>) -> tensor<768x2048xf16>
  %1 = fuse.add %0, %b : (tensor<768x2048xf16>, tensor<2048xf16>) -> tensor<768x2048xf16>
  return %1 : tensor<768x2048xf16>
}
