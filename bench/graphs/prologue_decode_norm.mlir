// Held-out GEMM prologue case: a decode step's RMSNorm (8 tokens) feeding a
// 4096x4096 bf16 projection; the norm's statistic stays a kernel.
func.func @prologue_decode_norm(%x: tensor<8x4096xbf16>, %g: tensor<4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<8x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
  %1 = fuse.matmul %0, %w : (tensor<8x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8x4096xbf16>
  return %1 : tensor<8x4096xbf16>
}
