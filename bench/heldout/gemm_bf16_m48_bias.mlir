// Held out (bench/heldout_kernels.py): bf16 48 rows through 5120x5120 with a bias
func.func @gemm_bf16_m48_bias(%a: tensor<48x5120xbf16>, %b: tensor<5120x5120xbf16>, %c: tensor<5120xbf16>) -> (tensor<48x5120xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<48x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<48x5120xbf16>
  %1 = fuse.add %0, %c : (tensor<48x5120xbf16>, tensor<5120xbf16>) -> tensor<48x5120xbf16>
  return %1 : tensor<48x5120xbf16>
}
