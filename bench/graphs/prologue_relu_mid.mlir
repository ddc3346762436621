// GEMM prologue, tuned (one wave of mid-size tiles): relu(x) by a
// 2048x2048 bf16 weight, 2048 rows.
func.func @prologue_relu_mid(%x: tensor<2048x2048xbf16>, %w: tensor<2048x2048xbf16>) -> tensor<2048x2048xbf16> {
  %0 = fuse.relu %x : tensor<2048x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<2048x2048xbf16>
  return %1 : tensor<2048x2048xbf16>
}
