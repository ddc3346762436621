// Held out (bench/heldout_kernels.py): f32 layer norm over 1023
func.func @row_f32_layernorm_ragged(%x: tensor<1000x1023xf32>, %g: tensor<1023xf32>, %b: tensor<1023xf32>) -> (tensor<1000x1023xf32>) {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05 : (tensor<1000x1023xf32>, tensor<1023xf32>, tensor<1023xf32>) -> tensor<1000x1023xf32>
  return %0 : tensor<1000x1023xf32>
}
