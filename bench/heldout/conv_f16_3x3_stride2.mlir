// Held out (bench/heldout_kernels.py): f16 3x3 stride 2, 4x56x56x64 to 128
func.func @conv_f16_3x3_stride2(%x: tensor<4x56x56x64xf16>, %w: tensor<128x3x3x64xf16>) -> (tensor<4x28x28x128xf16>) {
  %0 = fuse.conv2d %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<4x56x56x64xf16>, tensor<128x3x3x64xf16>) -> tensor<4x28x28x128xf16>
  return %0 : tensor<4x28x28x128xf16>
}
