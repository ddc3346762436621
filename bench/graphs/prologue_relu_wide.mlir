// Held-out GEMM prologue case: relu(x) feeding a 4096x4096x4096 bf16 GEMM
// (16 column tiles recompute the relu).
func.func @prologue_relu_wide(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = fuse.relu %x : tensor<4096x4096xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %1 : tensor<4096x4096xbf16>
}
