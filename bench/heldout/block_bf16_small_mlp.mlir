// Held out (bench/heldout_kernels.py): bf16 32 tokens: layer norm, 768x3072, GELU, 3072x768, residual
func.func @block_bf16_small_mlp(%x: tensor<32x768xbf16>, %g: tensor<768xbf16>, %b: tensor<768xbf16>, %w1: tensor<768x3072xbf16>, %w2: tensor<3072x768xbf16>) -> (tensor<32x768xbf16>) {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05 : (tensor<32x768xbf16>, tensor<768xbf16>, tensor<768xbf16>) -> tensor<32x768xbf16>
  %1 = fuse.matmul %0, %w1 : (tensor<32x768xbf16>, tensor<768x3072xbf16>) -> tensor<32x3072xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<32x3072xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<32x3072xbf16>, tensor<3072x768xbf16>) -> tensor<32x768xbf16>
  %4 = fuse.add %x, %3 : (tensor<32x768xbf16>, tensor<32x768xbf16>) -> tensor<32x768xbf16>
  return %4 : tensor<32x768xbf16>
}
