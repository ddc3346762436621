// fuzz-graphs.py seed 5288 (reduced)
func.func @g(%a0: tensor<64x3x17xbf16>, %a1: tensor<1x5xbf16>, %a2: tensor<5xbf16>, %a3: tensor<1x1xbf16>, %a6: tensor<17xbf16>) -> (tensor<64x3x17xbf16>) {
  %v1 = fuse.gelu %a0 approximate = tanh : tensor<64x3x17xbf16>
  %v3 = fuse.div %a3, %v1 : (tensor<1x1xbf16>, tensor<64x3x17xbf16>) -> tensor<64x3x17xbf16>
  %v12 = fuse.rms_norm %v3 scale %a6 axis = 2 epsilon = 1.0e-05 : (tensor<64x3x17xbf16>, tensor<17xbf16>) -> tensor<64x3x17xbf16>
  return %v12 : tensor<64x3x17xbf16>
}
