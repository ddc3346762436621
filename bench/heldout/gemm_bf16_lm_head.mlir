// Held out (bench/heldout_kernels.py): bf16 512 tokens through a 1024x32000 head
func.func @gemm_bf16_lm_head(%a: tensor<512x1024xbf16>, %b: tensor<1024x32000xbf16>) -> (tensor<512x32000xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<512x1024xbf16>, tensor<1024x32000xbf16>) -> tensor<512x32000xbf16>
  return %0 : tensor<512x32000xbf16>
}
