// fuzz-graphs.py seed 101
func.func @g(%a0: tensor<17x64x1xbf16>, %a1: tensor<64x1xbf16>, %a2: tensor<1xbf16>, %a3: tensor<1x5xbf16>, %a4: tensor<1x32xbf16>, %a5: tensor<1xbf16>, %a6: tensor<bf16>, %a7: tensor<1xbf16>) -> (tensor<7x1xbf16>) {
  %v0 = fuse.max %a1, %a0 : (tensor<64x1xbf16>, tensor<17x64x1xbf16>) -> tensor<17x64x1xbf16>
  %v1 = fuse.tanh %a1 : tensor<64x1xbf16>
  %v2 = fuse.max %v0, %a0 : (tensor<17x64x1xbf16>, tensor<17x64x1xbf16>) -> tensor<17x64x1xbf16>
  %v3 = fuse.rms_norm %a1 scale %a2 axis = 1 epsilon = 1.0e-05 : (tensor<64x1xbf16>, tensor<1xbf16>) -> tensor<64x1xbf16>
  %v4 = fuse.matmul %v1, %a3 : (tensor<64x1xbf16>, tensor<1x5xbf16>) -> tensor<64x5xbf16>
  %v5 = fuse.gelu %v3 approximate = none : tensor<64x1xbf16>
  %v6 = fuse.mul %a1, %v5 : (tensor<64x1xbf16>, tensor<64x1xbf16>) -> tensor<64x1xbf16>
  %v7 = fuse.matmul %v6, %a4 : (tensor<64x1xbf16>, tensor<1x32xbf16>) -> tensor<64x32xbf16>
  %v8 = fuse.add %v3, %a1 : (tensor<64x1xbf16>, tensor<64x1xbf16>) -> tensor<64x1xbf16>
  %v9 = fuse.cast %v1 : tensor<64x1xbf16> to tensor<64x1xf32>
  %v10 = fuse.softmax %v7 axis = 1 : tensor<64x32xbf16>
  %v11 = fuse.layer_norm %a0 scale %a5 axis = 2 epsilon = 1.0e-05 : (tensor<17x64x1xbf16>, tensor<1xbf16>) -> tensor<17x64x1xbf16>
  %v12 = fuse.max %a1, %a6 : (tensor<64x1xbf16>, tensor<bf16>) -> tensor<64x1xbf16>
  %v13 = fuse.layer_norm %v12 scale %a7 axis = 1 epsilon = 1.0e-05 : (tensor<64x1xbf16>, tensor<1xbf16>) -> tensor<64x1xbf16>
  %v14 = fuse.min %v7, %v10 : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %v15 = fuse.neg %v0 : tensor<17x64x1xbf16>
  %v16 = fuse.silu %a6 : tensor<bf16>
  %v17 = fuse.compare eq, %v14, %v10 : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xi1>
  %v18 = fuse.select %v17, %v14, %v14 : (tensor<64x32xi1>, tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %v19 = fuse.slice %v13 offsets = [22, 0] sizes = [7, 1] strides = [2, 2] : tensor<64x1xbf16> -> tensor<7x1xbf16>
  return %v19 : tensor<7x1xbf16>
}
