// Held out (bench/heldout_kernels.py): f16 softmax over rows of 32768
func.func @row_f16_softmax_long(%x: tensor<64x32768xf16>) -> (tensor<64x32768xf16>) {
  %0 = fuse.softmax %x axis = 1 : tensor<64x32768xf16>
  return %0 : tensor<64x32768xf16>
}
