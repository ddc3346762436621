// Split-K, held out: a decode step's 4096x4096 projection of 8 tokens (f32).
func.func @splitk_decode_f32(%a: tensor<8x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<8x4096xf32> {
  %0 = fuse.matmul %a, %b : (tensor<8x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  return %0 : tensor<8x4096xf32>
}
