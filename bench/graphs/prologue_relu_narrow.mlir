// Held-out GEMM prologue case: relu(x) feeding a GEMM of 512 columns.
func.func @prologue_relu_narrow(%x: tensor<8192x4096xbf16>, %w: tensor<4096x512xbf16>) -> tensor<8192x512xbf16> {
  %0 = fuse.relu %x : tensor<8192x4096xbf16>
  %1 = fuse.matmul %0, %w : (tensor<8192x4096xbf16>, tensor<4096x512xbf16>) -> tensor<8192x512xbf16>
  return %1 : tensor<8192x512xbf16>
}
