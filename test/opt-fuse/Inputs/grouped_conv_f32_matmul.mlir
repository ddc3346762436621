// A grouped conv2d and an f32 matmul: valid, but no emitter compiles them
// yet.
func.func @conv_then_matmul(%x: tensor<1x8x8x16xbf16>, %w: tensor<16x3x3x8xbf16>,
                            %a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<1x8x8x16xbf16>, tensor<64x64xf32>) {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 2
      : (tensor<1x8x8x16xbf16>, tensor<16x3x3x8xbf16>) -> tensor<1x8x8x16xbf16>
  %1 = fuse.matmul %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<1x8x8x16xbf16>, tensor<64x64xf32>
}
