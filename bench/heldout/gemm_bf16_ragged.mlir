// Held out (bench/heldout_kernels.py): bf16 3000x1000 by 1000x2000
func.func @gemm_bf16_ragged(%a: tensor<3000x1000xbf16>, %b: tensor<1000x2000xbf16>) -> (tensor<3000x2000xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<3000x1000xbf16>, tensor<1000x2000xbf16>) -> tensor<3000x2000xbf16>
  return %0 : tensor<3000x2000xbf16>
}
