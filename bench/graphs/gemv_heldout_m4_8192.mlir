// Skinny GEMM, held out: 4 tokens through an 8192x8192 bf16 projection.
func.func @gemv_heldout_m4_8192(%x: tensor<4x8192xbf16>, %w: tensor<8192x8192xbf16>) -> tensor<4x8192xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<4x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<4x8192xbf16>
  return %0 : tensor<4x8192xbf16>
}
