// Held out (bench/heldout_kernels.py): bf16 RMSNorm over 4096
func.func @row_bf16_rmsnorm_decode(%x: tensor<8x4096xbf16>, %g: tensor<4096xbf16>) -> (tensor<8x4096xbf16>) {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
  return %0 : tensor<8x4096xbf16>
}
