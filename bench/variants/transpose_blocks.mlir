// 4 x 4 register blocks for transposes of 4-byte tiles whose rows are
// whole vectors on both sides (written 2026-12-04, before the change was
// timed). Tuning: bench/graphs/transpose_f32.mlir (8192 x 8192) and
// t_5000x3000 below (the shape that ncu showed bound by the MIO queue).
// Held out, none timed before:
//   h_i32_4096x2048     i32
//   h_batched_f32       8 x 1024 x 512 f32, the last two axes swapped
//   h_relu_f32          3000 x 4000 f32, relu(x^T)
//   h_bias_f32          2048 x 6144 f32, (x + b)^T: a prologue reading a
//                       broadcast bias
//   h_heads_4d_f32      4 x 32 x 256 x 128 f32, the last two axes swapped
//   h_small_f32         512 x 1024 f32 (small)
//   h_edges_f32         3004 x 2052 f32 (partial tiles on both edges)
func.func @t_5000x3000(%x: tensor<5000x3000xf32>) -> tensor<3000x5000xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5000x3000xf32> -> tensor<3000x5000xf32>
  return %t : tensor<3000x5000xf32>
}
func.func @h_i32_4096x2048(%x: tensor<4096x2048xi32>) -> tensor<2048x4096xi32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4096x2048xi32> -> tensor<2048x4096xi32>
  return %t : tensor<2048x4096xi32>
}
func.func @h_batched_f32(%x: tensor<8x1024x512xf32>) -> tensor<8x512x1024xf32> {
  %t = fuse.transpose %x permutation = [0, 2, 1] : tensor<8x1024x512xf32> -> tensor<8x512x1024xf32>
  return %t : tensor<8x512x1024xf32>
}
func.func @h_relu_f32(%x: tensor<3000x4000xf32>) -> tensor<4000x3000xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3000x4000xf32> -> tensor<4000x3000xf32>
  %r = fuse.relu %t : tensor<4000x3000xf32>
  return %r : tensor<4000x3000xf32>
}
func.func @h_bias_f32(%x: tensor<2048x6144xf32>, %b: tensor<6144xf32>) -> tensor<6144x2048xf32> {
  %a = fuse.add %x, %b : (tensor<2048x6144xf32>, tensor<6144xf32>) -> tensor<2048x6144xf32>
  %t = fuse.transpose %a permutation = [1, 0] : tensor<2048x6144xf32> -> tensor<6144x2048xf32>
  return %t : tensor<6144x2048xf32>
}
func.func @h_heads_4d_f32(%x: tensor<4x32x256x128xf32>) -> tensor<4x32x128x256xf32> {
  %t = fuse.transpose %x permutation = [0, 1, 3, 2] : tensor<4x32x256x128xf32> -> tensor<4x32x128x256xf32>
  return %t : tensor<4x32x128x256xf32>
}
func.func @h_small_f32(%x: tensor<512x1024xf32>) -> tensor<1024x512xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<512x1024xf32> -> tensor<1024x512xf32>
  return %t : tensor<1024x512xf32>
}
func.func @h_edges_f32(%x: tensor<3004x2052xf32>) -> tensor<2052x3004xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3004x2052xf32> -> tensor<2052x3004xf32>
  return %t : tensor<2052x3004xf32>
}
