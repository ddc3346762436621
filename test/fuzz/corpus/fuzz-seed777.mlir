// fuzz-graphs.py seed 777
func.func @g(%a0: tensor<17x8xf32>, %a1: tensor<1x64xf32>, %a2: tensor<64x2xf32>, %a3: tensor<64x1xf32>, %a4: tensor<2xf32>, %a5: tensor<8xi32>) -> (tensor<64xbf16>, tensor<64x2xf32>) {
  %v0 = fuse.matmul %a1, %a2 : (tensor<1x64xf32>, tensor<64x2xf32>) -> tensor<1x2xf32>
  %v1 = fuse.silu %a0 : tensor<17x8xf32>
  %v2 = fuse.silu %a0 : tensor<17x8xf32>
  %v3 = fuse.reduce_mean %v1 axes = [1] keepdims : tensor<17x8xf32> -> tensor<17x1xf32>
  %v4 = fuse.add %a3, %a2 : (tensor<64x1xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
  %v5 = fuse.rms_norm %a2 scale %a4 axis = 1 epsilon = 1.0e-05 : (tensor<64x2xf32>, tensor<2xf32>) -> tensor<64x2xf32>
  %v6 = fuse.add %a5, %a5 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %v7 = fuse.compare eq, %a3, %a3 : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xi1>
  %v8 = fuse.select %v7, %a3, %a3 : (tensor<64x1xi1>, tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  %v9 = fuse.relu %v3 : tensor<17x1xf32>
  %v10 = fuse.cast %a2 : tensor<64x2xf32> to tensor<64x2xbf16>
  %v11 = fuse.compare ne, %v5, %v4 : (tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xi1>
  %v12 = fuse.select %v11, %v4, %a2 : (tensor<64x2xi1>, tensor<64x2xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
  %v13 = fuse.compare le, %a1, %a1 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xi1>
  %v14 = fuse.select %v13, %a1, %a1 : (tensor<1x64xi1>, tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  %v15 = fuse.neg %v2 : tensor<17x8xf32>
  %v16 = fuse.cast %v6 : tensor<8xi32> to tensor<8xbf16>
  %v17 = fuse.concat %v6, %v6 axis = 0 : (tensor<8xi32>, tensor<8xi32>) -> tensor<16xi32>
  %v18 = fuse.cast %v5 : tensor<64x2xf32> to tensor<64x2xbf16>
  %v19 = fuse.compare gt, %v16, %v16 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xi1>
  %v20 = fuse.select %v19, %v6, %v6 : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %v21 = fuse.abs %v20 : tensor<8xi32>
  %v22 = fuse.concat %v15, %v15 axis = 0 : (tensor<17x8xf32>, tensor<17x8xf32>) -> tensor<34x8xf32>
  %v23 = fuse.reduce_max %v10 axes = [1] : tensor<64x2xbf16> -> tensor<64xbf16>
  return %v23, %v5 : tensor<64xbf16>, tensor<64x2xf32>
}
