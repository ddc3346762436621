// Held out (bench/heldout_kernels.py): a bf16 to f32 cast
func.func @ew_bf16_to_f32(%x: tensor<4096x4096xbf16>) -> (tensor<4096x4096xf32>) {
  %0 = fuse.cast %x : tensor<4096x4096xbf16> to tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
