func.func @no_blob(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = fuse.constant dense_resource<missing> : tensor<4xf32>
  %0 = fuse.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
