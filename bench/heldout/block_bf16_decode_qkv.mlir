// Held out (bench/heldout_kernels.py): bf16 one token: RMSNorm, then a 2048x6144 QKV projection
func.func @block_bf16_decode_qkv(%x: tensor<1x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x6144xbf16>) -> (tensor<1x6144xbf16>) {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<1x2048xbf16>, tensor<2048xbf16>) -> tensor<1x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<1x2048xbf16>, tensor<2048x6144xbf16>) -> tensor<1x6144xbf16>
  return %1 : tensor<1x6144xbf16>
}
