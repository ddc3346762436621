func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = fuse.relu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
