// Held out (bench/heldout_kernels.py): f32 softmax over rows of 1000
func.func @row_f32_softmax_1000(%x: tensor<4096x1000xf32>) -> (tensor<4096x1000xf32>) {
  %0 = fuse.softmax %x axis = 1 : tensor<4096x1000xf32>
  return %0 : tensor<4096x1000xf32>
}
