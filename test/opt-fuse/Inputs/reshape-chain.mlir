func.func @reshape_chain(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = fuse.exp %x : tensor<4x8xf32>
  %1 = fuse.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  %2 = fuse.neg %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}
