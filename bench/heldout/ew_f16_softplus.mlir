// Held out (bench/heldout_kernels.py): f16 log(exp(x) + 1)
func.func @ew_f16_softplus(%x: tensor<4096x1000xf16>) -> (tensor<4096x1000xf16>) {
  %one = fuse.constant dense<1.0> : tensor<f16>
  %0 = fuse.exp %x : tensor<4096x1000xf16>
  %1 = fuse.add %0, %one : (tensor<4096x1000xf16>, tensor<f16>) -> tensor<4096x1000xf16>
  %2 = fuse.log %1 : tensor<4096x1000xf16>
  return %2 : tensor<4096x1000xf16>
}
