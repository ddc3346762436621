func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = fuse.constant dense_resource<short> : tensor<4xf32>
  return %w : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F"
    }
  }
#-}
