// Held out (bench/heldout_kernels.py): bf16 2 tokens through 8192x8192
func.func @gemm_bf16_decode_m2(%a: tensor<2x8192xbf16>, %b: tensor<8192x8192xbf16>) -> (tensor<2x8192xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<2x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<2x8192xbf16>
  return %0 : tensor<2x8192xbf16>
}
