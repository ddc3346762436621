// Skinny GEMM, held out: a [2, 6, 4096] activation (batch 2, 6 tokens)
// through a 4096x6144 bf16 QKV projection.
func.func @gemv_heldout_batch3d(%x: tensor<2x6x4096xbf16>, %w: tensor<4096x6144xbf16>) -> tensor<2x6x6144xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<2x6x4096xbf16>, tensor<4096x6144xbf16>) -> tensor<2x6x6144xbf16>
  return %0 : tensor<2x6x6144xbf16>
}
