// fuzz-graphs.py seed 42
func.func @g(%a0: tensor<8xbf16>, %a1: tensor<bf16>, %a2: tensor<bf16>) -> (tensor<bf16>) {
  %v0 = fuse.min %a0, %a1 : (tensor<8xbf16>, tensor<bf16>) -> tensor<8xbf16>
  %v1 = fuse.abs %v0 : tensor<8xbf16>
  %v2 = fuse.neg %a0 : tensor<8xbf16>
  %v3 = fuse.min %a1, %a2 : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  %v4 = fuse.concat %v0, %v0 axis = 0 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<16xbf16>
  %v5 = fuse.abs %v0 : tensor<8xbf16>
  %v6 = fuse.softmax %v1 axis = 0 : tensor<8xbf16>
  %v7 = fuse.softmax %a0 axis = 0 : tensor<8xbf16>
  %v8 = fuse.silu %a2 : tensor<bf16>
  %v9 = fuse.reduce_max %a0 axes = [0] : tensor<8xbf16> -> tensor<bf16>
  return %v9 : tensor<bf16>
}
