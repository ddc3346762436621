func.func @f(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  %0 = fuse.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}
