// fuzz-graphs.py seed 555
func.func @g(%a0: tensor<3xf32>, %a1: tensor<2x3x8xf32>, %a2: tensor<2x3x8xf32>, %a3: tensor<3xf32>, %a4: tensor<8xf32>, %a5: tensor<bf16>, %a6: tensor<f32>, %a7: tensor<8xf32>) -> (tensor<1xf32>) {
  %v0 = fuse.add %a2, %a1 : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %v1 = fuse.neg %a0 : tensor<3xf32>
  %v2 = fuse.rms_norm %v1 scale %a3 axis = 0 epsilon = 1.0e-05 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v3 = fuse.reshape %v1 : tensor<3xf32> -> tensor<3xf32>
  %v4 = fuse.rms_norm %a2 scale %a4 axis = 2 epsilon = 1.0e-05 : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %v5 = fuse.exp %a4 : tensor<8xf32>
  %v6 = fuse.compare lt, %v5, %a4 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %v7 = fuse.cast %v6 : tensor<8xi1> to tensor<8xbf16>
  %v8 = fuse.mul %v7, %a5 : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  %v9 = fuse.neg %v0 : tensor<2x3x8xf32>
  %v10 = fuse.mul %v1, %a6 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %v11 = fuse.reduce_mean %v3 axes = [0] keepdims : tensor<3xf32> -> tensor<1xf32>
  %v12 = fuse.layer_norm %a4 scale %a7 axis = 0 epsilon = 1.0e-05 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %v13 = fuse.cast %a0 : tensor<3xf32> to tensor<3xbf16>
  %v14 = fuse.cast %a1 : tensor<2x3x8xf32> to tensor<2x3x8xf16>
  %v15 = fuse.reduce_max %a4 axes = [0] : tensor<8xf32> -> tensor<f32>
  %v16 = fuse.slice %a3 offsets = [0] sizes = [1] strides = [1] : tensor<3xf32> -> tensor<1xf32>
  return %v16 : tensor<1xf32>
}
