// Split-K, held out: 4 batches of 64x4096 by 4096x96 (f32).
func.func @splitk_batched_f32(%a: tensor<4x64x4096xf32>, %b: tensor<4x4096x96xf32>) -> tensor<4x64x96xf32> {
  %0 = fuse.matmul %a, %b : (tensor<4x64x4096xf32>, tensor<4x4096x96xf32>) -> tensor<4x64x96xf32>
  return %0 : tensor<4x64x96xf32>
}
