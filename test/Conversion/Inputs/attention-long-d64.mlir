// Head dim 64 over 4096 tokens (test/Conversion/convert-fuse-to-gpu-attention.mlir,
// WG3-AUTO): long enough that auto takes 192-row tiles.
func.func @long_d64(%q: tensor<4x16x4096x64xbf16>, %k: tensor<4x16x4096x64xbf16>, %v: tensor<4x16x4096x64xbf16>) -> tensor<4x16x4096x64xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>, tensor<4x16x4096x64xbf16>) -> tensor<4x16x4096x64xbf16>
  return %o : tensor<4x16x4096x64xbf16>
}
