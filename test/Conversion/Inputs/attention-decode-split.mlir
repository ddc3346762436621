// A decode step over a KV cache of 512 keys joined with the new key and
// value (test/Conversion/convert-fuse-to-gpu-attention.mlir, SPLIT-TMA):
// 4 query tiles for 132 SMs.
func.func @decode_cache(%q: tensor<1x4x1x64xbf16>, %kc: tensor<1x4x512x64xbf16>, %vc: tensor<1x4x512x64xbf16>, %kn: tensor<1x4x1x64xbf16>, %vn: tensor<1x4x1x64xbf16>) -> tensor<1x4x1x64xbf16> {
  %k = fuse.concat %kc, %kn axis = 2 : (tensor<1x4x512x64xbf16>, tensor<1x4x1x64xbf16>) -> tensor<1x4x513x64xbf16>
  %v = fuse.concat %vc, %vn axis = 2 : (tensor<1x4x512x64xbf16>, tensor<1x4x1x64xbf16>) -> tensor<1x4x513x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x4x1x64xbf16>, tensor<1x4x513x64xbf16>, tensor<1x4x513x64xbf16>) -> tensor<1x4x1x64xbf16>
  return %o : tensor<1x4x1x64xbf16>
}
