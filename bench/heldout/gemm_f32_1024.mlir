// Held out (bench/heldout_kernels.py): f32 1024^3 (FMAs)
func.func @gemm_f32_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>) {
  %0 = fuse.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
