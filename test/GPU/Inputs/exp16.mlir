// exp whose result is rounded to bf16 or f16 (ScalarOps.cpp's expFor, on
// ex2.approx), and a row division whose quotients are (RowDivision.cpp,
// the product alone): test/GPU/exp16.test feeds every 16-bit input.
func.func @exp_bf16(%x: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.exp %x : tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
func.func @exp_f16(%x: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %0 = fuse.exp %x : tensor<256x256xf16>
  return %0 : tensor<256x256xf16>
}
// f32 arguments (a softmax's x - max) whose exp is rounded to bf16.
func.func @exp_f32_to_bf16(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xbf16> {
  %0 = fuse.exp %x : tensor<1024x1024xf32>
  %1 = fuse.cast %0 : tensor<1024x1024xf32> to tensor<1024x1024xbf16>
  return %1 : tensor<1024x1024xbf16>
}
// Each row of %x divided by the maximum of the same row of %d, rounded
// to bf16 and f16 (row_division.py's divisors and dividends).
func.func @divide_by_row_bf16(%x: tensor<64x1024xf32>, %d: tensor<64x1024xf32>) -> tensor<64x1024xbf16> {
  %m = fuse.reduce_max %d axes = [1] keepdims : tensor<64x1024xf32> -> tensor<64x1xf32>
  %q = fuse.div %x, %m : (tensor<64x1024xf32>, tensor<64x1xf32>) -> tensor<64x1024xf32>
  %r = fuse.cast %q : tensor<64x1024xf32> to tensor<64x1024xbf16>
  return %r : tensor<64x1024xbf16>
}
func.func @divide_by_row_f16(%x: tensor<64x1024xf32>, %d: tensor<64x1024xf32>) -> tensor<64x1024xf16> {
  %m = fuse.reduce_max %d axes = [1] keepdims : tensor<64x1024xf32> -> tensor<64x1xf32>
  %q = fuse.div %x, %m : (tensor<64x1024xf32>, tensor<64x1xf32>) -> tensor<64x1024xf32>
  %r = fuse.cast %q : tensor<64x1024xf32> to tensor<64x1024xf16>
  return %r : tensor<64x1024xf16>
}
