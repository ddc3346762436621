// A held-out set for a cheaper exp and row division on f16 and bf16
// results (written 2026-12-04, before the change was built or timed; the
// tuning kernels are bench/graphs/rows_masked_softmax_4d.mlir and
// rows_short_bf16.mlir). Each is one kernel:
//   softmax_bf16_ragged  bf16 softmax over 4096 rows of 1000
//   masked_4d_bf16       4-D bf16 scaled softmax, a 1x1x256x256 mask (a
//                        mask per query row, not per batch)
//   softmax_f16_decode   f16 softmax over 32 rows of 4096 (decode-size)
//   exp_bf16             bf16 exp, 4096x4096 (a loop kernel)
//   exp_mul_f16          f16 exp(x) * y, 3000x3001 (ragged loop kernel)
//   softmax_f32          f32 softmax over 2048 rows of 2048 (control:
//                        the change leaves f32 results alone)
func.func @softmax_bf16_ragged(%x: tensor<4096x1000xbf16>) -> tensor<4096x1000xbf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<4096x1000xbf16>
  return %0 : tensor<4096x1000xbf16>
}
func.func @masked_4d_bf16(%x: tensor<4x16x256x256xbf16>, %m: tensor<1x1x256x256xbf16>) -> tensor<4x16x256x256xbf16> {
  %c = fuse.constant dense<0.0883883> : tensor<bf16>
  %0 = fuse.mul %x, %c : (tensor<4x16x256x256xbf16>, tensor<bf16>) -> tensor<4x16x256x256xbf16>
  %1 = fuse.add %0, %m : (tensor<4x16x256x256xbf16>, tensor<1x1x256x256xbf16>) -> tensor<4x16x256x256xbf16>
  %2 = fuse.softmax %1 axis = 3 : tensor<4x16x256x256xbf16>
  return %2 : tensor<4x16x256x256xbf16>
}
func.func @softmax_f16_decode(%x: tensor<32x4096xf16>) -> tensor<32x4096xf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<32x4096xf16>
  return %0 : tensor<32x4096xf16>
}
func.func @exp_bf16(%x: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = fuse.exp %x : tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
func.func @exp_mul_f16(%x: tensor<3000x3001xf16>, %y: tensor<3000x3001xf16>) -> tensor<3000x3001xf16> {
  %0 = fuse.exp %x : tensor<3000x3001xf16>
  %1 = fuse.mul %0, %y : (tensor<3000x3001xf16>, tensor<3000x3001xf16>) -> tensor<3000x3001xf16>
  return %1 : tensor<3000x3001xf16>
}
func.func @softmax_f32(%x: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
