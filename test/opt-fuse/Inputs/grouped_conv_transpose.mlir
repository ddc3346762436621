// A grouped conv2d of 3 x 3 taps over 8 channels a group (72 products an
// output, too many to compute as windows) and a transpose: valid, but no
// emitter compiles the convolution yet.
func.func @conv_then_transpose(%x: tensor<1x8x8x16xbf16>, %w: tensor<16x3x3x8xbf16>,
                               %a: tensor<64x32xf32>) -> (tensor<1x8x8x16xbf16>, tensor<32x64xf32>) {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 2
      : (tensor<1x8x8x16xbf16>, tensor<16x3x3x8xbf16>) -> tensor<1x8x8x16xbf16>
  %1 = fuse.transpose %a permutation = [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %0, %1 : tensor<1x8x8x16xbf16>, tensor<32x64xf32>
}
