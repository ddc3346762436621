// Row kernel, tuned: RMSNorm in bf16 over rows of 4096 (issue 23 item 4).
func.func @rows_rmsnorm_bf16(%x: tensor<16384x4096xbf16>, %g: tensor<4096xbf16>) -> tensor<16384x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<16384x4096xbf16>, tensor<4096xbf16>) -> tensor<16384x4096xbf16>
  return %0 : tensor<16384x4096xbf16>
}
