// Skinny GEMM, tuned: a decode step of 8 tokens through a 4096x4096 bf16
// projection with bias and GELU (the issue's case).
func.func @gemv_decode8_gelu(%x: tensor<8x4096xbf16>, %w: tensor<4096x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<8x4096xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<8x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8x4096xbf16>
  %1 = fuse.add %0, %b : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<8x4096xbf16>
  return %2 : tensor<8x4096xbf16>
}
