// conv2d as an implicit GEMM at the shapes its copies treat differently:
// 3x3 with padding (taps outside the image read zeros), stride 2 over odd
// image sizes (ragged M), dilation, 1x1, channel counts that are multiples
// of 8, of 4 only or odd (3: plain loads), filter counts that are not
// multiples of the tile, f16, and epilogues (bias + relu, residual).

func.func @resnet_3x3(%x: tensor<2x14x14x64xbf16>, %w: tensor<64x3x3x64xbf16>, %b: tensor<64xbf16>) -> tensor<2x14x14x64xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<2x14x14x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<2x14x14x64xbf16>
  %1 = fuse.add %0, %b : (tensor<2x14x14x64xbf16>, tensor<64xbf16>) -> tensor<2x14x14x64xbf16>
  %2 = fuse.relu %1 : tensor<2x14x14x64xbf16>
  return %2 : tensor<2x14x14x64xbf16>
}

func.func @stem_stride2(%x: tensor<3x23x19x3xbf16>, %w: tensor<16x7x7x3xbf16>) -> tensor<3x12x10x16xbf16> {
  %0 = fuse.conv2d %x, %w strides = [2, 2] padding = [3, 3, 3, 3] dilation = [1, 1] groups = 1
      : (tensor<3x23x19x3xbf16>, tensor<16x7x7x3xbf16>) -> tensor<3x12x10x16xbf16>
  return %0 : tensor<3x12x10x16xbf16>
}

func.func @dilated_residual(%x: tensor<2x17x15x20xbf16>, %w: tensor<24x3x3x20xbf16>, %r: tensor<2x13x11x24xbf16>) -> tensor<2x13x11x24xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [2, 2] groups = 1
      : (tensor<2x17x15x20xbf16>, tensor<24x3x3x20xbf16>) -> tensor<2x13x11x24xbf16>
  %1 = fuse.add %0, %r : (tensor<2x13x11x24xbf16>, tensor<2x13x11x24xbf16>) -> tensor<2x13x11x24xbf16>
  return %1 : tensor<2x13x11x24xbf16>
}

func.func @pointwise(%x: tensor<4x9x9x32xbf16>, %w: tensor<40x1x1x32xbf16>) -> tensor<4x9x9x40xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 1
      : (tensor<4x9x9x32xbf16>, tensor<40x1x1x32xbf16>) -> tensor<4x9x9x40xbf16>
  return %0 : tensor<4x9x9x40xbf16>
}

func.func @asymmetric_f16(%x: tensor<1x10x12x8xf16>, %w: tensor<72x3x2x8xf16>) -> tensor<1x9x13x72xf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x10x12x8xf16>, tensor<72x3x2x8xf16>) -> tensor<1x9x13x72xf16>
  return %0 : tensor<1x9x13x72xf16>
}

// Grouped convolutions (fuse-decompose computes them as the strided windows
// of the padded input): MobileNet's depthwise 3x3 with stride 2, bias and
// ReLU6 in bf16; a depthwise multiplier of 2 in f16; ConvNeXt's 7x7
// depthwise; groups of four channels, dilated, in f32.
func.func @depthwise_relu6(%x: tensor<2x15x13x32xbf16>, %w: tensor<32x3x3x1xbf16>, %b: tensor<32xbf16>) -> tensor<2x8x7x32xbf16> {
  %0 = fuse.conv2d %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 32
      : (tensor<2x15x13x32xbf16>, tensor<32x3x3x1xbf16>) -> tensor<2x8x7x32xbf16>
  %1 = fuse.add %0, %b : (tensor<2x8x7x32xbf16>, tensor<32xbf16>) -> tensor<2x8x7x32xbf16>
  %zero = fuse.constant dense<0.0> : tensor<bf16>
  %six = fuse.constant dense<6.0> : tensor<bf16>
  %2 = fuse.max %1, %zero : (tensor<2x8x7x32xbf16>, tensor<bf16>) -> tensor<2x8x7x32xbf16>
  %3 = fuse.min %2, %six : (tensor<2x8x7x32xbf16>, tensor<bf16>) -> tensor<2x8x7x32xbf16>
  return %3 : tensor<2x8x7x32xbf16>
}

func.func @depthwise_multiplier_f16(%x: tensor<1x9x11x12xf16>, %w: tensor<24x3x3x1xf16>) -> tensor<1x9x11x24xf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 12
      : (tensor<1x9x11x12xf16>, tensor<24x3x3x1xf16>) -> tensor<1x9x11x24xf16>
  return %0 : tensor<1x9x11x24xf16>
}

func.func @depthwise_7x7(%x: tensor<1x14x14x40xbf16>, %w: tensor<40x7x7x1xbf16>) -> tensor<1x14x14x40xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [3, 3, 3, 3] dilation = [1, 1] groups = 40
      : (tensor<1x14x14x40xbf16>, tensor<40x7x7x1xbf16>) -> tensor<1x14x14x40xbf16>
  return %0 : tensor<1x14x14x40xbf16>
}

func.func @grouped_dilated_f32(%x: tensor<2x10x9x16xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<2x6x5x8xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [2, 2] groups = 4
      : (tensor<2x10x9x16xf32>, tensor<8x3x3x4xf32>) -> tensor<2x6x5x8xf32>
  return %0 : tensor<2x6x5x8xf32>
}

// Grouped convolutions of more than 64 products an output run on the GEMM
// kernels, one GEMM per group: ResNeXt's 3x3 of 16 channels a group with
// its bias and ReLU; a stride-2 block of two groups of 32 channels with a
// residual; f32 groups of 12 channels over a ragged image, 8 filters a
// group; 9 channels a group (no aligned copy: scalar loads) and 5 filters.
func.func @resnext_bias_relu(%x: tensor<2x9x9x128xbf16>, %w: tensor<128x3x3x16xbf16>, %b: tensor<128xbf16>) -> tensor<2x9x9x128xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 8
      : (tensor<2x9x9x128xbf16>, tensor<128x3x3x16xbf16>) -> tensor<2x9x9x128xbf16>
  %1 = fuse.add %0, %b : (tensor<2x9x9x128xbf16>, tensor<128xbf16>) -> tensor<2x9x9x128xbf16>
  %2 = fuse.relu %1 : tensor<2x9x9x128xbf16>
  return %2 : tensor<2x9x9x128xbf16>
}

func.func @grouped_stride2_residual_f16(%x: tensor<1x12x11x64xf16>, %w: tensor<64x3x3x32xf16>, %r: tensor<1x6x6x64xf16>) -> tensor<1x6x6x64xf16> {
  %0 = fuse.conv2d %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 2
      : (tensor<1x12x11x64xf16>, tensor<64x3x3x32xf16>) -> tensor<1x6x6x64xf16>
  %1 = fuse.add %0, %r : (tensor<1x6x6x64xf16>, tensor<1x6x6x64xf16>) -> tensor<1x6x6x64xf16>
  return %1 : tensor<1x6x6x64xf16>
}

func.func @grouped_ragged_f32(%x: tensor<2x7x9x36xf32>, %w: tensor<24x3x3x12xf32>) -> tensor<2x5x7x24xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 3
      : (tensor<2x7x9x36xf32>, tensor<24x3x3x12xf32>) -> tensor<2x5x7x24xf32>
  return %0 : tensor<2x5x7x24xf32>
}

func.func @grouped_odd_channels(%x: tensor<1x6x6x36xbf16>, %w: tensor<20x3x3x9xbf16>) -> tensor<1x6x6x20xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 4
      : (tensor<1x6x6x36xbf16>, tensor<20x3x3x9xbf16>) -> tensor<1x6x6x20xbf16>
  return %0 : tensor<1x6x6x20xbf16>
}

// Transposed convolutions (ONNX ConvTranspose) as the convolution of the
// input dilated by the strides: UNet's 2x upsampling (2x2 filter, stride 2
// as input dilation 2, padded 1 each side), a 4x4 stride-2 GAN layer in
// f16 with a bias and ReLU, and a depthwise one (a group per channel, on
// the GEMM kernels: windows do not dilate inputs).
func.func @transposed_2x2_up(%x: tensor<2x7x9x64xbf16>, %w: tensor<32x2x2x64xbf16>) -> tensor<2x14x18x32xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 input_dilation = [2, 2]
      : (tensor<2x7x9x64xbf16>, tensor<32x2x2x64xbf16>) -> tensor<2x14x18x32xbf16>
  return %0 : tensor<2x14x18x32xbf16>
}

func.func @transposed_4x4_bias_relu_f16(%x: tensor<1x5x6x48xf16>, %w: tensor<24x4x4x48xf16>, %b: tensor<24xf16>) -> tensor<1x10x12x24xf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [2, 2, 2, 2] dilation = [1, 1] groups = 1 input_dilation = [2, 2]
      : (tensor<1x5x6x48xf16>, tensor<24x4x4x48xf16>) -> tensor<1x10x12x24xf16>
  %1 = fuse.add %0, %b : (tensor<1x10x12x24xf16>, tensor<24xf16>) -> tensor<1x10x12x24xf16>
  %2 = fuse.relu %1 : tensor<1x10x12x24xf16>
  return %2 : tensor<1x10x12x24xf16>
}

func.func @transposed_depthwise_f32(%x: tensor<1x6x5x8xf32>, %w: tensor<8x3x3x1xf32>) -> tensor<1x12x10x8xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 2, 1, 2] dilation = [1, 1] groups = 8 input_dilation = [2, 2]
      : (tensor<1x6x5x8xf32>, tensor<8x3x3x1xf32>) -> tensor<1x12x10x8xf32>
  return %0 : tensor<1x12x10x8xf32>
}
