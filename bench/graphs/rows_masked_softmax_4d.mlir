// Row kernel, tuned: a scaled 4-D f16 softmax over the last axis with a
// mask broadcast over heads and query rows (issue 23 item 4).
func.func @rows_masked_softmax_4d(%x: tensor<8x12x512x512xf16>, %m: tensor<8x1x1x512xf16>) -> tensor<8x12x512x512xf16> {
  %c = fuse.constant dense<0.125> : tensor<f16>
  %0 = fuse.mul %x, %c : (tensor<8x12x512x512xf16>, tensor<f16>) -> tensor<8x12x512x512xf16>
  %1 = fuse.add %0, %m : (tensor<8x12x512x512xf16>, tensor<8x1x1x512xf16>) -> tensor<8x12x512x512xf16>
  %2 = fuse.softmax %1 axis = 3 : tensor<8x12x512x512xf16>
  return %2 : tensor<8x12x512x512xf16>
}
