// Held out (bench/heldout_kernels.py): f16 RMSNorm over 5120
func.func @row_f16_rmsnorm_5120(%x: tensor<2048x5120xf16>, %g: tensor<5120xf16>) -> (tensor<2048x5120xf16>) {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<2048x5120xf16>, tensor<5120xf16>) -> tensor<2048x5120xf16>
  return %0 : tensor<2048x5120xf16>
}
