// Held out (bench/heldout_kernels.py): f16 8192x32 by 32x8192
func.func @gemm_f16_short_k(%a: tensor<8192x32xf16>, %b: tensor<32x8192xf16>) -> (tensor<8192x8192xf16>) {
  %0 = fuse.matmul %a, %b : (tensor<8192x32xf16>, tensor<32x8192xf16>) -> tensor<8192x8192xf16>
  return %0 : tensor<8192x8192xf16>
}
