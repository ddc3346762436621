// Held out (bench/heldout_kernels.py): a 256 MiB f32 ReLU
func.func @ew_large_f32_relu(%x: tensor<8192x8192xf32>) -> (tensor<8192x8192xf32>) {
  %0 = fuse.relu %x : tensor<8192x8192xf32>
  return %0 : tensor<8192x8192xf32>
}
