// Skinny GEMM, held out: 3 rows, ragged 5000x3000 bf16 weight, with a bias.
func.func @gemv_heldout_ragged(%x: tensor<3x5000xbf16>, %w: tensor<5000x3000xbf16>, %b: tensor<3000xbf16>) -> tensor<3x3000xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<3x5000xbf16>, tensor<5000x3000xbf16>) -> tensor<3x3000xbf16>
  %1 = fuse.add %0, %b : (tensor<3x3000xbf16>, tensor<3000xbf16>) -> tensor<3x3000xbf16>
  return %1 : tensor<3x3000xbf16>
}
