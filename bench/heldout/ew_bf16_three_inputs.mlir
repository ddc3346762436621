// Held out (bench/heldout_kernels.py): bf16 a * b + c
func.func @ew_bf16_three_inputs(%a: tensor<2048x5120xbf16>, %b: tensor<2048x5120xbf16>, %c: tensor<2048x5120xbf16>) -> (tensor<2048x5120xbf16>) {
  %0 = fuse.mul %a, %b : (tensor<2048x5120xbf16>, tensor<2048x5120xbf16>) -> tensor<2048x5120xbf16>
  %1 = fuse.add %0, %c : (tensor<2048x5120xbf16>, tensor<2048x5120xbf16>) -> tensor<2048x5120xbf16>
  return %1 : tensor<2048x5120xbf16>
}
