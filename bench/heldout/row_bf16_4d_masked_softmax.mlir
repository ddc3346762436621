// Held out (bench/heldout_kernels.py): 4-D bf16 scale, broadcast mask, softmax
func.func @row_bf16_4d_masked_softmax(%x: tensor<4x16x128x128xbf16>, %m: tensor<4x1x1x128xbf16>) -> (tensor<4x16x128x128xbf16>) {
  %c = fuse.constant dense<0.125> : tensor<bf16>
  %0 = fuse.mul %x, %c : (tensor<4x16x128x128xbf16>, tensor<bf16>) -> tensor<4x16x128x128xbf16>
  %1 = fuse.add %0, %m : (tensor<4x16x128x128xbf16>, tensor<4x1x1x128xbf16>) -> tensor<4x16x128x128xbf16>
  %2 = fuse.softmax %1 axis = 3 : tensor<4x16x128x128xbf16>
  return %2 : tensor<4x16x128x128xbf16>
}
