// Blocked transposes with partial tiles on the edges (written 2026-12-04,
// before clamped edge loads were built or timed; tuning: 5000 x 3000 in
// transpose_blocks.mlir). Held out, none timed before:
//   e_f32_3000x2000    f32, partial tiles on both edges
//   e_i32_1000x3000    i32
//   e_batched_f32      6 x 700 x 900 f32, the last two axes swapped
func.func @e_f32_3000x2000(%x: tensor<3000x2000xf32>) -> tensor<2000x3000xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3000x2000xf32> -> tensor<2000x3000xf32>
  return %t : tensor<2000x3000xf32>
}
func.func @e_i32_1000x3000(%x: tensor<1000x3000xi32>) -> tensor<3000x1000xi32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<1000x3000xi32> -> tensor<3000x1000xi32>
  return %t : tensor<3000x1000xi32>
}
func.func @e_batched_f32(%x: tensor<6x700x900xf32>) -> tensor<6x900x700xf32> {
  %t = fuse.transpose %x permutation = [0, 2, 1] : tensor<6x700x900xf32> -> tensor<6x900x700xf32>
  return %t : tensor<6x900x700xf32>
}
