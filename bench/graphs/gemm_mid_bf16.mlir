// GEMM, tuned (a wave or less of the large tiles): bf16 1536 rows by a
// 3072x1536 weight, K longer than M and N.
func.func @gemm_mid_bf16(%x: tensor<1536x3072xbf16>, %w: tensor<3072x1536xbf16>) -> tensor<1536x1536xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<1536x3072xbf16>, tensor<3072x1536xbf16>) -> tensor<1536x1536xbf16>
  return %0 : tensor<1536x1536xbf16>
}
