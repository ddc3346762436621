// The f32 transcendental functions of the elementwise kernels, for
// bench/f32_math_error.py: 2^24 arguments in, one output per function.
func.func @f32_math(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>) {
  %0 = fuse.sigmoid %x : tensor<16777216xf32>
  %1 = fuse.silu %x : tensor<16777216xf32>
  %2 = fuse.erf %x : tensor<16777216xf32>
  %3 = fuse.gelu %x approximate = none : tensor<16777216xf32>
  %4 = fuse.exp %x : tensor<16777216xf32>
  %5 = fuse.tanh %x : tensor<16777216xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>, tensor<16777216xf32>
}
