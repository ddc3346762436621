// Held-out GEMM prologue case: rows scaled by a per-row and a per-column
// factor in f32 (a norm's second half) feeding a GEMM of 1024 columns.
func.func @prologue_scaled_rows(%x: tensor<4096x4096xbf16>, %r: tensor<4096x1xbf16>, %c: tensor<4096xbf16>, %w: tensor<4096x1024xbf16>) -> tensor<4096x1024xbf16> {
  %0 = fuse.cast %x : tensor<4096x4096xbf16> to tensor<4096x4096xf32>
  %r32 = fuse.cast %r : tensor<4096x1xbf16> to tensor<4096x1xf32>
  %1 = fuse.mul %0, %r32 : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  %2 = fuse.cast %c : tensor<4096xbf16> to tensor<4096xf32>
  %3 = fuse.mul %1, %2 : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  %4 = fuse.cast %3 : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
  %5 = fuse.matmul %4, %w : (tensor<4096x4096xbf16>, tensor<4096x1024xbf16>) -> tensor<4096x1024xbf16>
  return %5 : tensor<4096x1024xbf16>
}
