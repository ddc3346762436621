// A third held-out set for skewed transpose tiles (written 2026-12-04,
// before the rule it judges was built). The second set
// (transpose_sectors2.mlir) showed short output rows slower skewed (33
// f32: 16%, 129 f32: 4.5%) and rows of 999 or more level or faster; the
// rule was then narrowed to output rows of at least four tiles (256
// elements of 4 bytes, 128 of 8). These rows lie between the measured
// ones; none was timed before:
//   f32_r301   f32 301 x 4001: output rows of 301
//   i32_r517   i32 517 x 2999: output rows of 517
//   heads_r263 2 x 8 x 263 x 500 f32, the last two axes swapped: rows of
//              263
//   i64_r130   i64 130 x 3001: rows of 130 (four 32-element tiles)
func.func @f32_r301(%x: tensor<301x4001xf32>) -> tensor<4001x301xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<301x4001xf32> -> tensor<4001x301xf32>
  return %t : tensor<4001x301xf32>
}
func.func @i32_r517(%x: tensor<517x2999xi32>) -> tensor<2999x517xi32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<517x2999xi32> -> tensor<2999x517xi32>
  return %t : tensor<2999x517xi32>
}
func.func @heads_r263(%x: tensor<2x8x263x500xf32>) -> tensor<2x8x500x263xf32> {
  %t = fuse.transpose %x permutation = [0, 1, 3, 2] : tensor<2x8x263x500xf32> -> tensor<2x8x500x263xf32>
  return %t : tensor<2x8x500x263xf32>
}
func.func @i64_r130(%x: tensor<130x3001xi64>) -> tensor<3001x130xi64> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<130x3001xi64> -> tensor<3001x130xi64>
  return %t : tensor<3001x130xi64>
}
