// Held out (bench/heldout_kernels.py): ragged bf16 bias + GELU (tanh)
func.func @ew_ragged_bf16_gelu_bias(%x: tensor<3001x777xbf16>, %b: tensor<777xbf16>) -> (tensor<3001x777xbf16>) {
  %0 = fuse.add %x, %b : (tensor<3001x777xbf16>, tensor<777xbf16>) -> tensor<3001x777xbf16>
  %1 = fuse.gelu %0 approximate = tanh : tensor<3001x777xbf16>
  return %1 : tensor<3001x777xbf16>
}
