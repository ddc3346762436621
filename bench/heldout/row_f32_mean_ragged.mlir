// Held out (bench/heldout_kernels.py): f32 means of ragged rows
func.func @row_f32_mean_ragged(%x: tensor<3000x333xf32>) -> (tensor<3000xf32>) {
  %0 = fuse.reduce_mean %x axes = [1] : tensor<3000x333xf32> -> tensor<3000xf32>
  return %0 : tensor<3000xf32>
}
