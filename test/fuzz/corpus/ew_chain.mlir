// The 8-op elementwise chain opfuse's targets are stated for:
//   y = tanh(x * sigmoid(1.702 * x) + b) * 0.5 + x
// x is f32[8192, 8192], b a per-column bias f32[8192] broadcast over rows.
// Unfused, every op is a kernel that reads and writes 256 MiB; fused, one
// kernel reads x and b once and writes y once.
func.func @ew_chain(%x: tensor<8192x8192xf32>, %b: tensor<8192xf32>) -> tensor<8192x8192xf32> {
  %k = fuse.constant dense<1.702> : tensor<f32>
  %half = fuse.constant dense<0.5> : tensor<f32>
  %0 = fuse.mul %x, %k : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<8192x8192xf32>
  %1 = fuse.sigmoid %0 : tensor<8192x8192xf32>
  %2 = fuse.mul %x, %1 : (tensor<8192x8192xf32>, tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  %3 = fuse.add %2, %b : (tensor<8192x8192xf32>, tensor<8192xf32>) -> tensor<8192x8192xf32>
  %4 = fuse.tanh %3 : tensor<8192x8192xf32>
  %5 = fuse.mul %4, %half : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<8192x8192xf32>
  %6 = fuse.add %5, %x : (tensor<8192x8192xf32>, tensor<8192x8192xf32>) -> tensor<8192x8192xf32>
  return %6 : tensor<8192x8192xf32>
}
