// fuzz-graphs.py seed 3
func.func @g(%a0: tensor<64x2xf32>, %a1: tensor<1x2xf16>) -> (tensor<64x2xf16>) {
  %v0 = fuse.cast %a0 : tensor<64x2xf32> to tensor<64x2xf16>
  %v1 = fuse.sub %v0, %a1 : (tensor<64x2xf16>, tensor<1x2xf16>) -> tensor<64x2xf16>
  %v2 = fuse.add %v0, %v1 : (tensor<64x2xf16>, tensor<64x2xf16>) -> tensor<64x2xf16>
  return %v2 : tensor<64x2xf16>
}
