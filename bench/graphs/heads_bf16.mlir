// Attention heads out of [B, S, H, D] into [B, H, S, D] (the minor
// dimension stays): the view emitter's benchmark.
func.func @heads_bf16(%x: tensor<8x2048x32x128xbf16>) -> tensor<8x32x2048x128xbf16> {
  %t = fuse.transpose %x permutation = [0, 2, 1, 3] : tensor<8x2048x32x128xbf16> -> tensor<8x32x2048x128xbf16>
  return %t : tensor<8x32x2048x128xbf16>
}
