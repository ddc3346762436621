// A chunk of 16 queries under a causal mask (SPLIT-CAUSAL in
// test/Conversion/convert-fuse-to-gpu-attention.mlir): a split of its keys
// may see none, which the TMA-fed kernel cannot take.
func.func @chunk_causal(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x300x64xbf16>, %v: tensor<1x4x300x64xbf16>) -> tensor<1x4x16x64xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<1x4x16x64xbf16>, tensor<1x4x300x64xbf16>, tensor<1x4x300x64xbf16>) -> tensor<1x4x16x64xbf16>
  return %o : tensor<1x4x16x64xbf16>
}
