// An output-heavy GEMM: attention scores Q.K^T of 16 heads, 2048 tokens,
// head dim 128 (K = 128: 128 MiB written for 8 MiB read), as the Llama
// prefill block computes them. The store-bound case the 16-byte epilogue
// stores were measured on.
func.func @scores_bf16(%q: tensor<16x2048x128xbf16>, %k: tensor<16x128x2048xbf16>) -> tensor<16x2048x2048xbf16> {
  %0 = fuse.matmul %q, %k : (tensor<16x2048x128xbf16>, tensor<16x128x2048xbf16>) -> tensor<16x2048x2048xbf16>
  return %0 : tensor<16x2048x2048xbf16>
}
