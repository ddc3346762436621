// Held out (bench/heldout_kernels.py): bf16 3x3, 8x28x28x128 to 128
func.func @conv_bf16_3x3_28(%x: tensor<8x28x28x128xbf16>, %w: tensor<128x3x3x128xbf16>) -> (tensor<8x28x28x128xbf16>) {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<8x28x28x128xbf16>, tensor<128x3x3x128xbf16>) -> tensor<8x28x28x128xbf16>
  return %0 : tensor<8x28x28x128xbf16>
}
