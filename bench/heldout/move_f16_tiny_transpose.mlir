// Held out (bench/heldout_kernels.py): f16 17x33 transpose
func.func @move_f16_tiny_transpose(%x: tensor<17x33xf16>) -> (tensor<33x17xf16>) {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<17x33xf16> -> tensor<33x17xf16>
  return %0 : tensor<33x17xf16>
}
