// A sum over rows of no elements and a transpose: valid, but no emitter
// compiles a reduction over an empty tensor yet.
func.func @empty_rows_then_transpose(%x: tensor<4x0xf32>, %a: tensor<64x32xf32>)
    -> (tensor<4xf32>, tensor<32x64xf32>) {
  %0 = fuse.reduce_sum %x axes = [1] : tensor<4x0xf32> -> tensor<4xf32>
  %1 = fuse.transpose %a permutation = [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %0, %1 : tensor<4xf32>, tensor<32x64xf32>
}
