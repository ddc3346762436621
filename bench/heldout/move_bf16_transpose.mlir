// Held out (bench/heldout_kernels.py): bf16 4096x3000 transpose
func.func @move_bf16_transpose(%x: tensor<4096x3000xbf16>) -> (tensor<3000x4096xbf16>) {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<4096x3000xbf16> -> tensor<3000x4096xbf16>
  return %0 : tensor<3000x4096xbf16>
}
