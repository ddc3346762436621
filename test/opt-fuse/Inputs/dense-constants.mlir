// Constants that are not splats: a dense bias and a weight kept as a
// resource blob (2 x 4 f32: 1, 2, ..., 8). They become initialised buffers.
func.func @dense_constants(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %b = fuse.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %w = fuse.constant dense_resource<weights> : tensor<2x4xf32>
  %0 = fuse.mul %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = fuse.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041"
    }
  }
#-}
