// Transposes of 2-byte values (written 2026-12-04, before any change for
// them was timed). Their tile holds f32, so a padded tile costs eight
// shared-memory stores and eight loads for every 16-byte vector moved.
// Tuning:
//   t_4096x3000_bf16    rows whole 16-byte vectors on both sides (76% of
//                       copy before)
//   t_4099x3001_bf16    odd on both sides (59% of copy before)
// Held out, none timed before:
//   h_f16_4096x2048     f16, whole vectors
//   h_heads_4d_bf16     4 x 32 x 256 x 128 bf16, the last two axes swapped
//   h_gelu_bf16         3000 x 4000 bf16, gelu(x^T)
//   h_bias_bf16         2048 x 6144 bf16, (x + b)^T: a prologue reading a
//                       broadcast bias
//   h_small_bf16        512 x 1024 bf16 (small)
//   h_edges_bf16        3004 x 2052 bf16 (rows of 4-element multiples, not 8)
//   h_ragged_f16        5003 x 1999 f16, odd on both sides
//   h_odd_across_bf16   4097 x 3000 bf16 (output rows odd)
//   h_odd_inner_bf16    4096 x 3001 bf16 (input rows odd)
//   h_decode_bf16       16 x 4096 bf16 (decode-size)
//   h_widen_bf16        3001 x 2003 bf16 -> f32 (cast after the transpose)
func.func @t_4096x3000_bf16(%x: tensor<4096x3000xbf16>) -> tensor<3000x4096xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4096x3000xbf16> -> tensor<3000x4096xbf16>
  return %t : tensor<3000x4096xbf16>
}
func.func @t_4099x3001_bf16(%x: tensor<4099x3001xbf16>) -> tensor<3001x4099xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4099x3001xbf16> -> tensor<3001x4099xbf16>
  return %t : tensor<3001x4099xbf16>
}
func.func @h_f16_4096x2048(%x: tensor<4096x2048xf16>) -> tensor<2048x4096xf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4096x2048xf16> -> tensor<2048x4096xf16>
  return %t : tensor<2048x4096xf16>
}
func.func @h_heads_4d_bf16(%x: tensor<4x32x256x128xbf16>) -> tensor<4x32x128x256xbf16> {
  %t = fuse.transpose %x permutation = [0, 1, 3, 2] : tensor<4x32x256x128xbf16> -> tensor<4x32x128x256xbf16>
  return %t : tensor<4x32x128x256xbf16>
}
func.func @h_gelu_bf16(%x: tensor<3000x4000xbf16>) -> tensor<4000x3000xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3000x4000xbf16> -> tensor<4000x3000xbf16>
  %g = fuse.gelu %t approximate = none : tensor<4000x3000xbf16>
  return %g : tensor<4000x3000xbf16>
}
func.func @h_bias_bf16(%x: tensor<2048x6144xbf16>, %b: tensor<6144xbf16>) -> tensor<6144x2048xbf16> {
  %a = fuse.add %x, %b : (tensor<2048x6144xbf16>, tensor<6144xbf16>) -> tensor<2048x6144xbf16>
  %t = fuse.transpose %a permutation = [1, 0] : tensor<2048x6144xbf16> -> tensor<6144x2048xbf16>
  return %t : tensor<6144x2048xbf16>
}
func.func @h_small_bf16(%x: tensor<512x1024xbf16>) -> tensor<1024x512xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<512x1024xbf16> -> tensor<1024x512xbf16>
  return %t : tensor<1024x512xbf16>
}
func.func @h_edges_bf16(%x: tensor<3004x2052xbf16>) -> tensor<2052x3004xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3004x2052xbf16> -> tensor<2052x3004xbf16>
  return %t : tensor<2052x3004xbf16>
}
func.func @h_ragged_f16(%x: tensor<5003x1999xf16>) -> tensor<1999x5003xf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5003x1999xf16> -> tensor<1999x5003xf16>
  return %t : tensor<1999x5003xf16>
}
func.func @h_odd_across_bf16(%x: tensor<4097x3000xbf16>) -> tensor<3000x4097xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4097x3000xbf16> -> tensor<3000x4097xbf16>
  return %t : tensor<3000x4097xbf16>
}
func.func @h_odd_inner_bf16(%x: tensor<4096x3001xbf16>) -> tensor<3001x4096xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<4096x3001xbf16> -> tensor<3001x4096xbf16>
  return %t : tensor<3001x4096xbf16>
}
func.func @h_decode_bf16(%x: tensor<16x4096xbf16>) -> tensor<4096x16xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<16x4096xbf16> -> tensor<4096x16xbf16>
  return %t : tensor<4096x16xbf16>
}
func.func @h_widen_bf16(%x: tensor<3001x2003xbf16>) -> tensor<2003x3001xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<3001x2003xbf16> -> tensor<2003x3001xbf16>
  %c = fuse.cast %t : tensor<2003x3001xbf16> to tensor<2003x3001xf32>
  return %c : tensor<2003x3001xf32>
}
