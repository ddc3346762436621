// Held out (bench/heldout_kernels.py): bf16 32 heads of 512x64 by 64x512
func.func @gemm_bf16_batched_heads(%a: tensor<32x512x64xbf16>, %b: tensor<32x64x512xbf16>) -> (tensor<32x512x512xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<32x512x64xbf16>, tensor<32x64x512xbf16>) -> tensor<32x512x512xbf16>
  return %0 : tensor<32x512x512xbf16>
}
