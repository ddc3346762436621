// Held out (bench/heldout_kernels.py): f32 [8, 512, 16, 64] to heads-first
func.func @move_f32_heads(%x: tensor<8x512x16x64xf32>) -> (tensor<8x16x512x64xf32>) {
  %0 = fuse.transpose %x permutation = [0, 2, 1, 3] : tensor<8x512x16x64xf32> -> tensor<8x16x512x64xf32>
  return %0 : tensor<8x16x512x64xf32>
}
