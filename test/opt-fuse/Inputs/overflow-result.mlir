// Small inputs, an outer sum of 2^62 f32 elements (2^64 bytes).
func.func @outer(%a: tensor<2147483648x1xf32>, %b: tensor<2147483648xf32>) -> tensor<f32> {
  %0 = fuse.add %a, %b : (tensor<2147483648x1xf32>, tensor<2147483648xf32>) -> tensor<2147483648x2147483648xf32>
  %1 = fuse.reduce_sum %0 axes = [0, 1] : tensor<2147483648x2147483648xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
