// Bias + GELU on a bf16 2048 x 4096 activation (16 MiB): its bytes fit in
// half the L2, between the launch-bound and HBM-bound regimes.
func.func @medium_bias_gelu(%x: tensor<2048x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<2048x4096xbf16> {
  %0 = fuse.add %x, %b : (tensor<2048x4096xbf16>, tensor<4096xbf16>) -> tensor<2048x4096xbf16>
  %1 = fuse.gelu %0 approximate = none : tensor<2048x4096xbf16>
  return %1 : tensor<2048x4096xbf16>
}
