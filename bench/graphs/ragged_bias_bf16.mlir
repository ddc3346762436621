// Held out (not tuned on): a ragged projection with a bias in its epilogue,
// 3000 x 4104 x 1000 bf16.
func.func @ragged_bias_bf16(%a: tensor<3000x1000xbf16>, %b: tensor<1000x4104xbf16>, %bias: tensor<4104xbf16>) -> tensor<3000x4104xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<3000x1000xbf16>, tensor<1000x4104xbf16>) -> tensor<3000x4104xbf16>
  %1 = fuse.add %0, %bias : (tensor<3000x4104xbf16>, tensor<4104xbf16>) -> tensor<3000x4104xbf16>
  return %1 : tensor<3000x4104xbf16>
}
