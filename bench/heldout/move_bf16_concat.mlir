// Held out (bench/heldout_kernels.py): bf16 concat of 1000 and 3000 columns
func.func @move_bf16_concat(%a: tensor<2048x1000xbf16>, %b: tensor<2048x3000xbf16>) -> (tensor<2048x4000xbf16>) {
  %0 = fuse.concat %a, %b axis = 1 : (tensor<2048x1000xbf16>, tensor<2048x3000xbf16>) -> tensor<2048x4000xbf16>
  return %0 : tensor<2048x4000xbf16>
}
