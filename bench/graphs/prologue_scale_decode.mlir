// mma.sync GEMM prologue with a broadcast input, tuned: 4 tokens scaled
// per column of K before a 5632x2048 bf16 projection (issue 23).
func.func @prologue_scale_decode(%x: tensor<4x5632xbf16>, %s: tensor<5632xbf16>, %w: tensor<5632x2048xbf16>) -> tensor<4x2048xbf16> {
  %0 = fuse.mul %x, %s : (tensor<4x5632xbf16>, tensor<5632xbf16>) -> tensor<4x5632xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4x5632xbf16>, tensor<5632x2048xbf16>) -> tensor<4x2048xbf16>
  return %1 : tensor<4x2048xbf16>
}
