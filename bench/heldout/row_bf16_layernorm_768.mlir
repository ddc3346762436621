// Held out (bench/heldout_kernels.py): bf16 layer norm over 768
func.func @row_bf16_layernorm_768(%x: tensor<8192x768xbf16>, %g: tensor<768xbf16>, %b: tensor<768xbf16>) -> (tensor<8192x768xbf16>) {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05 : (tensor<8192x768xbf16>, tensor<768xbf16>, tensor<768xbf16>) -> tensor<8192x768xbf16>
  return %0 : tensor<8192x768xbf16>
}
