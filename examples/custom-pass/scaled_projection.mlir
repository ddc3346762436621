// A projection of scaled activations: x * 0.125 (1/sqrt(64), as attention
// scales its queries) before x @ w. opfuse runs the scale as a kernel of its
// own; sink-scale-past-matmul moves it into the GEMM epilogue.
func.func @scaled_projection(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<8192x4096xbf16> {
  %c = fuse.constant dense<0.125> : tensor<bf16>
  %xs = fuse.mul %x, %c : (tensor<8192x4096xbf16>, tensor<bf16>) -> tensor<8192x4096xbf16>
  %y = fuse.matmul %xs, %w : (tensor<8192x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8192x4096xbf16>
  return %y : tensor<8192x4096xbf16>
}

