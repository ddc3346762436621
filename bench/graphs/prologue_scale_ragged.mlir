// mma.sync GEMM prologue with a broadcast input, held out: 2 tokens scaled
// per column of a ragged K (3000) before a 3000x5000 bf16 projection.
func.func @prologue_scale_ragged(%x: tensor<2x3000xbf16>, %s: tensor<3000xbf16>, %w: tensor<3000x5000xbf16>) -> tensor<2x5000xbf16> {
  %0 = fuse.mul %x, %s : (tensor<2x3000xbf16>, tensor<3000xbf16>) -> tensor<2x3000xbf16>
  %1 = fuse.matmul %0, %w : (tensor<2x3000xbf16>, tensor<3000x5000xbf16>) -> tensor<2x5000xbf16>
  return %1 : tensor<2x5000xbf16>
}
