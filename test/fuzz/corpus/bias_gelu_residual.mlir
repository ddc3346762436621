// A transformer block's epilogue in bf16: y = gelu(x + bias) + residual,
// with the exact (erf) GELU of torch.nn.functional.gelu's default.
// x and residual are bf16[16384, 4096]; bias is bf16[4096].
func.func @bias_gelu_residual(%x: tensor<16384x4096xbf16>, %bias: tensor<4096xbf16>,
                              %residual: tensor<16384x4096xbf16>) -> tensor<16384x4096xbf16> {
  %0 = fuse.add %x, %bias : (tensor<16384x4096xbf16>, tensor<4096xbf16>) -> tensor<16384x4096xbf16>
  %1 = fuse.gelu %0 approximate = none : tensor<16384x4096xbf16>
  %2 = fuse.add %1, %residual : (tensor<16384x4096xbf16>, tensor<16384x4096xbf16>) -> tensor<16384x4096xbf16>
  return %2 : tensor<16384x4096xbf16>
}
