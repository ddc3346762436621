// Split-K, tuned on: ResNet-18's last 3x3 convolution at batch 1 (f32),
// a 7x7 image of 512 channels, K = 4608.
func.func @splitk_conv7_f32(%x: tensor<1x7x7x512xf32>, %w: tensor<512x3x3x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x7x7x512xf32>, tensor<512x3x3x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
