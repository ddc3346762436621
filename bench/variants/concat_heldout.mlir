// Loop kernels that read through a concat (written 2026-12-05, before the
// change that reads a concat's inputs with loads guarded by each input's
// range and selects among them, where the inputs are cheap, instead of a
// branch whose loads stall it). Tuning: bench/graphs/rotary_bf16.mlir.
// Held out, one function each, for opt-fuse FILE --function=NAME --bench:
//   f16_rotary_1000    f16 rotary (rotate_half) over 2 x 1000 x 16 x 128
//   bf16_partial_rope  bf16 rotary on the first 32 of 128 dims (NeoX's
//                      partial rotary: a concat of three pieces)
//   f32_concat_scale   f32 concat of two inputs (1024 + 3072 wide) times
//                      a scale, 4096 rows
//   bf16_kv_append     bf16 KV cache append along the sequence axis,
//                      8 x 32 x (2047 + 1) x 128, plus a scale
//   f16_decode_rotary  f16 rotary at decode size, 4 x 1 x 32 x 128
//   bf16_plain_concat  bf16 concat of 2048 x 1000 and 2048 x 3000 (no ops;
//                      bench/heldout/move_bf16_concat.mlir's shape)
func.func @f16_rotary_1000(%x: tensor<2x1000x16x128xf16>, %cos: tensor<1000x1x128xf16>, %sin: tensor<1000x1x128xf16>) -> tensor<2x1000x16x128xf16> {
  %x1 = fuse.slice %x offsets = [0, 0, 0, 0] sizes = [2, 1000, 16, 64] strides = [1, 1, 1, 1] : tensor<2x1000x16x128xf16> -> tensor<2x1000x16x64xf16>
  %x2 = fuse.slice %x offsets = [0, 0, 0, 64] sizes = [2, 1000, 16, 64] strides = [1, 1, 1, 1] : tensor<2x1000x16x128xf16> -> tensor<2x1000x16x64xf16>
  %n = fuse.neg %x2 : tensor<2x1000x16x64xf16>
  %r = fuse.concat %n, %x1 axis = 3 : (tensor<2x1000x16x64xf16>, tensor<2x1000x16x64xf16>) -> tensor<2x1000x16x128xf16>
  %a = fuse.mul %x, %cos : (tensor<2x1000x16x128xf16>, tensor<1000x1x128xf16>) -> tensor<2x1000x16x128xf16>
  %b = fuse.mul %r, %sin : (tensor<2x1000x16x128xf16>, tensor<1000x1x128xf16>) -> tensor<2x1000x16x128xf16>
  %y = fuse.add %a, %b : (tensor<2x1000x16x128xf16>, tensor<2x1000x16x128xf16>) -> tensor<2x1000x16x128xf16>
  return %y : tensor<2x1000x16x128xf16>
}
func.func @bf16_partial_rope(%x: tensor<4x1024x32x128xbf16>, %cos: tensor<1024x1x32xbf16>, %sin: tensor<1024x1x32xbf16>) -> tensor<4x1024x32x128xbf16> {
  %r1 = fuse.slice %x offsets = [0, 0, 0, 0] sizes = [4, 1024, 32, 16] strides = [1, 1, 1, 1] : tensor<4x1024x32x128xbf16> -> tensor<4x1024x32x16xbf16>
  %r2 = fuse.slice %x offsets = [0, 0, 0, 16] sizes = [4, 1024, 32, 16] strides = [1, 1, 1, 1] : tensor<4x1024x32x128xbf16> -> tensor<4x1024x32x16xbf16>
  %rot = fuse.slice %x offsets = [0, 0, 0, 0] sizes = [4, 1024, 32, 32] strides = [1, 1, 1, 1] : tensor<4x1024x32x128xbf16> -> tensor<4x1024x32x32xbf16>
  %pass = fuse.slice %x offsets = [0, 0, 0, 32] sizes = [4, 1024, 32, 96] strides = [1, 1, 1, 1] : tensor<4x1024x32x128xbf16> -> tensor<4x1024x32x96xbf16>
  %n = fuse.neg %r2 : tensor<4x1024x32x16xbf16>
  %half = fuse.concat %n, %r1 axis = 3 : (tensor<4x1024x32x16xbf16>, tensor<4x1024x32x16xbf16>) -> tensor<4x1024x32x32xbf16>
  %a = fuse.mul %rot, %cos : (tensor<4x1024x32x32xbf16>, tensor<1024x1x32xbf16>) -> tensor<4x1024x32x32xbf16>
  %b = fuse.mul %half, %sin : (tensor<4x1024x32x32xbf16>, tensor<1024x1x32xbf16>) -> tensor<4x1024x32x32xbf16>
  %e = fuse.add %a, %b : (tensor<4x1024x32x32xbf16>, tensor<4x1024x32x32xbf16>) -> tensor<4x1024x32x32xbf16>
  %y = fuse.concat %e, %pass axis = 3 : (tensor<4x1024x32x32xbf16>, tensor<4x1024x32x96xbf16>) -> tensor<4x1024x32x128xbf16>
  return %y : tensor<4x1024x32x128xbf16>
}
func.func @f32_concat_scale(%a: tensor<4096x1024xf32>, %b: tensor<4096x3072xf32>) -> tensor<4096x4096xf32> {
  %c = fuse.concat %a, %b axis = 1 : (tensor<4096x1024xf32>, tensor<4096x3072xf32>) -> tensor<4096x4096xf32>
  %s = fuse.constant dense<0.5> : tensor<f32>
  %y = fuse.mul %c, %s : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
func.func @bf16_kv_append(%past: tensor<8x32x2047x128xbf16>, %new: tensor<8x32x1x128xbf16>) -> tensor<8x32x2048x128xbf16> {
  %c = fuse.concat %past, %new axis = 2 : (tensor<8x32x2047x128xbf16>, tensor<8x32x1x128xbf16>) -> tensor<8x32x2048x128xbf16>
  %s = fuse.constant dense<0.125> : tensor<bf16>
  %y = fuse.mul %c, %s : (tensor<8x32x2048x128xbf16>, tensor<bf16>) -> tensor<8x32x2048x128xbf16>
  return %y : tensor<8x32x2048x128xbf16>
}
func.func @f16_decode_rotary(%x: tensor<4x1x32x128xf16>, %cos: tensor<1x1x128xf16>, %sin: tensor<1x1x128xf16>) -> tensor<4x1x32x128xf16> {
  %x1 = fuse.slice %x offsets = [0, 0, 0, 0] sizes = [4, 1, 32, 64] strides = [1, 1, 1, 1] : tensor<4x1x32x128xf16> -> tensor<4x1x32x64xf16>
  %x2 = fuse.slice %x offsets = [0, 0, 0, 64] sizes = [4, 1, 32, 64] strides = [1, 1, 1, 1] : tensor<4x1x32x128xf16> -> tensor<4x1x32x64xf16>
  %n = fuse.neg %x2 : tensor<4x1x32x64xf16>
  %r = fuse.concat %n, %x1 axis = 3 : (tensor<4x1x32x64xf16>, tensor<4x1x32x64xf16>) -> tensor<4x1x32x128xf16>
  %a = fuse.mul %x, %cos : (tensor<4x1x32x128xf16>, tensor<1x1x128xf16>) -> tensor<4x1x32x128xf16>
  %b = fuse.mul %r, %sin : (tensor<4x1x32x128xf16>, tensor<1x1x128xf16>) -> tensor<4x1x32x128xf16>
  %y = fuse.add %a, %b : (tensor<4x1x32x128xf16>, tensor<4x1x32x128xf16>) -> tensor<4x1x32x128xf16>
  return %y : tensor<4x1x32x128xf16>
}
func.func @bf16_plain_concat(%a: tensor<2048x1000xbf16>, %b: tensor<2048x3000xbf16>) -> tensor<2048x4000xbf16> {
  %0 = fuse.concat %a, %b axis = 1 : (tensor<2048x1000xbf16>, tensor<2048x3000xbf16>) -> tensor<2048x4000xbf16>
  return %0 : tensor<2048x4000xbf16>
}
