// The SwiGLU gate of a transformer MLP, silu(g) * u, on f16 8192 x 8192
// (128 MiB per tensor): HBM-bound.
func.func @swiglu_f16(%g: tensor<8192x8192xf16>, %u: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %0 = fuse.silu %g : tensor<8192x8192xf16>
  %1 = fuse.mul %0, %u : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16>
  return %1 : tensor<8192x8192xf16>
}
