// Held out (bench/heldout_kernels.py): f32 16 rows through 4096x4096
func.func @gemm_f32_skinny_m16(%a: tensor<16x4096xf32>, %b: tensor<4096x4096xf32>) -> (tensor<16x4096xf32>) {
  %0 = fuse.matmul %a, %b : (tensor<16x4096xf32>, tensor<4096x4096xf32>) -> tensor<16x4096xf32>
  return %0 : tensor<16x4096xf32>
}
