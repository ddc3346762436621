// Query tiles of 8 (batch, head) pairs, 2 tiles of 128 rows each
// (test/Conversion/convert-fuse-to-gpu-attention.mlir, ORDER).
func.func @order(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xbf16>
  return %o : tensor<2x4x256x64xbf16>
}

func.func @order_causal(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xbf16>
  return %o : tensor<2x4x256x64xbf16>
}
