// Attention with and without an additive 2048x2048 mask (the prefill
// blocks' shape), for tma:128x128 against tma:128x128/persistent
// (docs/benchmarks.md, 2026-12-04 afternoon): opt-fuse THIS --function=F
// --attention-tiling=T --bench --iters 50.
func.func @m128_b1(%q: tensor<1x16x2048x128xbf16>, %k: tensor<1x16x2048x128xbf16>, %v: tensor<1x16x2048x128xbf16>, %m: tensor<1x1x2048x2048xbf16>) -> tensor<1x16x2048x128xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 8.838835e-02 : (tensor<1x16x2048x128xbf16>, tensor<1x16x2048x128xbf16>, tensor<1x16x2048x128xbf16>, tensor<1x1x2048x2048xbf16>) -> tensor<1x16x2048x128xbf16>
  return %o : tensor<1x16x2048x128xbf16>
}
func.func @u128_b1(%q: tensor<1x16x2048x128xbf16>, %k: tensor<1x16x2048x128xbf16>, %v: tensor<1x16x2048x128xbf16>) -> tensor<1x16x2048x128xbf16> {
  %o = fuse.attention %q, %k, %v scale = 8.838835e-02 : (tensor<1x16x2048x128xbf16>, tensor<1x16x2048x128xbf16>, tensor<1x16x2048x128xbf16>) -> tensor<1x16x2048x128xbf16>
  return %o : tensor<1x16x2048x128xbf16>
}
func.func @m128_b8(%q: tensor<8x16x2048x128xbf16>, %k: tensor<8x16x2048x128xbf16>, %v: tensor<8x16x2048x128xbf16>, %m: tensor<1x1x2048x2048xbf16>) -> tensor<8x16x2048x128xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 8.838835e-02 : (tensor<8x16x2048x128xbf16>, tensor<8x16x2048x128xbf16>, tensor<8x16x2048x128xbf16>, tensor<1x1x2048x2048xbf16>) -> tensor<8x16x2048x128xbf16>
  return %o : tensor<8x16x2048x128xbf16>
}
func.func @m64_b1(%q: tensor<1x16x2048x64xbf16>, %k: tensor<1x16x2048x64xbf16>, %v: tensor<1x16x2048x64xbf16>, %m: tensor<1x1x2048x2048xbf16>) -> tensor<1x16x2048x64xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 8.838835e-02 : (tensor<1x16x2048x64xbf16>, tensor<1x16x2048x64xbf16>, tensor<1x16x2048x64xbf16>, tensor<1x1x2048x2048xbf16>) -> tensor<1x16x2048x64xbf16>
  return %o : tensor<1x16x2048x64xbf16>
}
