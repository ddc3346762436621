// An outer sum, column [4096, 1] + row [1, 4096]: reads 32 KiB, writes
// 64 MiB of f32; then exp. Write-bound.
func.func @outer_sum(%c: tensor<4096x1xf32>, %r: tensor<1x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fuse.add %c, %r : (tensor<4096x1xf32>, tensor<1x4096xf32>) -> tensor<4096x4096xf32>
  %1 = fuse.exp %0 : tensor<4096x4096xf32>
  return %1 : tensor<4096x4096xf32>
}
