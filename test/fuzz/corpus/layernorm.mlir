// Layer normalisation of f32[16384, 4096] rows with learned scale (gamma)
// and shift (beta), epsilon 1e-5, as torch.nn.LayerNorm(4096).
func.func @layernorm(%x: tensor<16384x4096xf32>, %gamma: tensor<4096xf32>,
                     %beta: tensor<4096xf32>) -> tensor<16384x4096xf32> {
  %0 = fuse.layer_norm %x scale %gamma bias %beta axis = 1 epsilon = 1.0e-05
      : (tensor<16384x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<16384x4096xf32>
  return %0 : tensor<16384x4096xf32>
}
