// Held out (bench/heldout_kernels.py): f16 2048^3
func.func @gemm_f16_square_2048(%a: tensor<2048x2048xf16>, %b: tensor<2048x2048xf16>) -> (tensor<2048x2048xf16>) {
  %0 = fuse.matmul %a, %b : (tensor<2048x2048xf16>, tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  return %0 : tensor<2048x2048xf16>
}
