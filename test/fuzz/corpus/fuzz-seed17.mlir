// fuzz-graphs.py seed 17
func.func @g(%a0: tensor<17x8xbf16>, %a1: tensor<8xbf16>, %a2: tensor<8x1xbf16>, %a3: tensor<bf16>) -> (tensor<bf16>) {
  %v0 = fuse.abs %a0 : tensor<17x8xbf16>
  %v1 = fuse.cast %a1 : tensor<8xbf16> to tensor<8xf16>
  %v2 = fuse.matmul %a0, %a2 : (tensor<17x8xbf16>, tensor<8x1xbf16>) -> tensor<17x1xbf16>
  %v3 = fuse.min %a1, %a3 : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  %v4 = fuse.compare gt, %v1, %v1 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xi1>
  %v5 = fuse.cast %v4 : tensor<8xi1> to tensor<8xf32>
  %v6 = fuse.reduce_max %v3 axes = [0] : tensor<8xbf16> -> tensor<bf16>
  return %v6 : tensor<bf16>
}
