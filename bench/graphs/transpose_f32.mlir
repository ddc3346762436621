// A materialised 2-D transpose (the minor dimension moves): the tiled
// transpose emitter's benchmark, against a device copy of the same bytes.
func.func @transpose_f32(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<8192x8192xf32> -> tensor<8192x8192xf32>
  return %t : tensor<8192x8192xf32>
}
