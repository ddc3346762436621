// Held out (bench/heldout_kernels.py): f32 tanh of x plus a per-row column
func.func @ew_f32_column_tanh(%x: tensor<5000x300xf32>, %c: tensor<5000x1xf32>) -> (tensor<5000x300xf32>) {
  %0 = fuse.add %x, %c : (tensor<5000x300xf32>, tensor<5000x1xf32>) -> tensor<5000x300xf32>
  %1 = fuse.tanh %0 : tensor<5000x300xf32>
  return %1 : tensor<5000x300xf32>
}
