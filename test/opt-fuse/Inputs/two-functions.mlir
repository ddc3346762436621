func.func @first(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fuse.exp %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @second(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = fuse.neg %x : tensor<64xf32>
  %1 = fuse.tanh %0 : tensor<64xf32>
  return %1 : tensor<64xf32>
}
