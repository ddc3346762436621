// Held out (not tuned on): a transpose of odd sizes, partial tiles on both
// edges and rows that are not whole vectors.
func.func @transpose_ragged_f32(%x: tensor<5001x3003xf32>) -> tensor<3003x5001xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5001x3003xf32> -> tensor<3003x5001xf32>
  return %t : tensor<3003x5001xf32>
}
