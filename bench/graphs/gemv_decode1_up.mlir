// Skinny GEMM, tuned: one token through a 4096x14336 bf16 up-projection
// (Llama 3 8B's MLP; 112 MiB of weight, more than the L2).
func.func @gemv_decode1_up(%x: tensor<1x4096xbf16>, %w: tensor<4096x14336xbf16>) -> tensor<1x14336xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<1x4096xbf16>, tensor<4096x14336xbf16>) -> tensor<1x14336xbf16>
  return %0 : tensor<1x14336xbf16>
}
