// Skinny GEMM, held out: 32 rows through a 4096x11008 f16 projection with
// SiLU.
func.func @gemv_heldout_m32_f16(%x: tensor<32x4096xf16>, %w: tensor<4096x11008xf16>) -> tensor<32x11008xf16> {
  %0 = fuse.matmul %x, %w : (tensor<32x4096xf16>, tensor<4096x11008xf16>) -> tensor<32x11008xf16>
  %1 = fuse.silu %0 : tensor<32x11008xf16>
  return %1 : tensor<32x11008xf16>
}
