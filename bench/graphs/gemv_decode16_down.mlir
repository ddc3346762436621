// Skinny GEMM, tuned: 16 tokens through a 14336x4096 bf16 down-projection
// with the residual added.
func.func @gemv_decode16_down(%x: tensor<16x14336xbf16>, %w: tensor<14336x4096xbf16>, %r: tensor<16x4096xbf16>) -> tensor<16x4096xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<16x14336xbf16>, tensor<14336x4096xbf16>) -> tensor<16x4096xbf16>
  %1 = fuse.add %0, %r : (tensor<16x4096xbf16>, tensor<16x4096xbf16>) -> tensor<16x4096xbf16>
  return %1 : tensor<16x4096xbf16>
}
