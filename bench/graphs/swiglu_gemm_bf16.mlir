// The Llama block's gate projection with its SwiGLU epilogue (2048 tokens,
// 2048 -> 5632, bf16): silu(x @ W_gate) * up in one GEMM kernel. The
// epilogue's sigmoid is what docs/numerics.md times against the bare GEMM
// (drop the silu and the mul to get it).
func.func @swiglu_gemm(%x: tensor<2048x2048xbf16>, %w: tensor<2048x5632xbf16>, %up: tensor<2048x5632xbf16>) -> tensor<2048x5632xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<2048x2048xbf16>, tensor<2048x5632xbf16>) -> tensor<2048x5632xbf16>
  %1 = fuse.silu %0 : tensor<2048x5632xbf16>
  %2 = fuse.mul %1, %up : (tensor<2048x5632xbf16>, tensor<2048x5632xbf16>) -> tensor<2048x5632xbf16>
  return %2 : tensor<2048x5632xbf16>
}
