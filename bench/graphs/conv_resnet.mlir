// ResNet-style 3x3 conv2d, bf16 NHWC: N=32, 56x56, 64 -> 64 channels,
// stride 1, padding 1 (2 * 32*56*56 * 64 * 3*3*64 = 7.4 GFLOP).
func.func @conv_resnet(%x: tensor<32x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  return %0 : tensor<32x56x56x64xbf16>
}
