// A small bias + ReLU (64 x 1024 f32, 256 KiB): launch-bound, the case
// where few FLOPs still cost a whole launch.
func.func @small_bias_relu(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %0 = fuse.add %x, %b : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %1 = fuse.relu %0 : tensor<64x1024xf32>
  return %1 : tensor<64x1024xf32>
}
