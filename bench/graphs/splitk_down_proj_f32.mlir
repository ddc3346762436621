// Split-K, tuned on: GPT-2's MLP down-projection at 128 tokens (f32),
// 6 output tiles of 128x128 for 132 SMs, K = 3072.
func.func @splitk_down_proj_f32(%a: tensor<128x3072xf32>, %b: tensor<3072x768xf32>) -> tensor<128x768xf32> {
  %0 = fuse.matmul %a, %b : (tensor<128x3072xf32>, tensor<3072x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}
