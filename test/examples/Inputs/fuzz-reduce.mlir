// fuzz-graphs.py seed 1000
func.func @g(%a0: tensor<8x17xf32>, %a1: tensor<17xf32>, %a2: tensor<8x17xi32>) -> (tensor<8x17xf32>, tensor<8xf32>) {
  %v0 = fuse.add %a0, %a1 : (tensor<8x17xf32>, tensor<17xf32>) -> tensor<8x17xf32>
  %v1 = fuse.exp %v0 : tensor<8x17xf32>
  %v2 = fuse.tanh %v1 : tensor<8x17xf32>
  %v3 = fuse.relu %a2 : tensor<8x17xi32>
  %v4 = fuse.cast %v3 : tensor<8x17xi32> to tensor<8x17xf32>
  %v5 = fuse.mul %v2, %v4 : (tensor<8x17xf32>, tensor<8x17xf32>) -> tensor<8x17xf32>
  %v6 = fuse.reduce_sum %v5 axes = [1] : tensor<8x17xf32> -> tensor<8xf32>
  return %v5, %v6 : tensor<8x17xf32>, tensor<8xf32>
}
