// Head dim 128 (test/Conversion/convert-fuse-to-gpu-attention.mlir, WIDE-192).
func.func @wide(%q: tensor<1x2x256x128xbf16>, %k: tensor<1x2x256x128xbf16>, %v: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16> {
  %o = fuse.attention %q, %k, %v scale = 8.838835e-02 : (tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xbf16>
  return %o : tensor<1x2x256x128xbf16>
}
