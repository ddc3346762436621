// Held out (bench/heldout_kernels.py): bf16 1x1, 16x14x14x256 to 1024
func.func @conv_bf16_1x1_14(%x: tensor<16x14x14x256xbf16>, %w: tensor<1024x1x1x256xbf16>) -> (tensor<16x14x14x1024xbf16>) {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 1 : (tensor<16x14x14x256xbf16>, tensor<1024x1x1x256xbf16>) -> tensor<16x14x14x1024xbf16>
  return %0 : tensor<16x14x14x1024xbf16>
}
