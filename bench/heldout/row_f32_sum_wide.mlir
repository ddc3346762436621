// Held out (bench/heldout_kernels.py): f32 sums of 64 rows of 100000
func.func @row_f32_sum_wide(%x: tensor<64x100000xf32>) -> (tensor<64xf32>) {
  %0 = fuse.reduce_sum %x axes = [1] : tensor<64x100000xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
