// Held out (bench/heldout_kernels.py): f16 column slice of a 4096x4096
func.func @move_f16_slice(%x: tensor<4096x4096xf16>) -> (tensor<4096x1024xf16>) {
  %0 = fuse.slice %x offsets = [0, 1024] sizes = [4096, 1024] strides = [1, 1] : tensor<4096x4096xf16> -> tensor<4096x1024xf16>
  return %0 : tensor<4096x1024xf16>
}
