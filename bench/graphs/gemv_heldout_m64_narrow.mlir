// Skinny GEMM, held out: 64 rows, a narrow output (8192x1024 bf16 weight).
func.func @gemv_heldout_m64_narrow(%x: tensor<64x8192xbf16>, %w: tensor<8192x1024xbf16>) -> tensor<64x1024xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<64x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<64x1024xbf16>
  return %0 : tensor<64x1024xbf16>
}
