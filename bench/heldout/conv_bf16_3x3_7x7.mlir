// Held out (bench/heldout_kernels.py): bf16 3x3 on a 7x7x512 image
func.func @conv_bf16_3x3_7x7(%x: tensor<1x7x7x512xbf16>, %w: tensor<512x3x3x512xbf16>) -> (tensor<1x7x7x512xbf16>) {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<1x7x7x512xbf16>, tensor<512x3x3x512xbf16>) -> tensor<1x7x7x512xbf16>
  return %0 : tensor<1x7x7x512xbf16>
}
