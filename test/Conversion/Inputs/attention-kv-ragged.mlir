// A KV cache of 100 rows joined with 3 new ones: no piece boundary on a
// key tile, so the TMA-fed kernel cannot take it (convert-fuse-to-gpu-attention).
func.func @kv_ragged(%q: tensor<1x2x3x64xbf16>, %kc: tensor<1x2x100x64xbf16>, %kn: tensor<1x2x3x64xbf16>, %v: tensor<1x2x103x64xbf16>) -> tensor<1x2x3x64xbf16> {
  %k = fuse.concat %kc, %kn axis = 2 : (tensor<1x2x100x64xbf16>, tensor<1x2x3x64xbf16>) -> tensor<1x2x103x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x3x64xbf16>, tensor<1x2x103x64xbf16>, tensor<1x2x103x64xbf16>) -> tensor<1x2x3x64xbf16>
  return %o : tensor<1x2x3x64xbf16>
}
