// Row softmax of f32[65536, 1024], as attention scores are normalised.
func.func @softmax(%x: tensor<65536x1024xf32>) -> tensor<65536x1024xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<65536x1024xf32>
  return %0 : tensor<65536x1024xf32>
}
