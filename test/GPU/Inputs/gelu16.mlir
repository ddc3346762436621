// GELU (erf) whose result is rounded to bf16 or f16 (FastMath.cpp's
// emitGeluErf16: x Phi(x) on one polynomial and one ex2.approx):
// test/GPU/gelu16.test feeds every 16-bit input.
func.func @gelu_bf16(%x: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
func.func @gelu_f16(%x: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %0 = fuse.gelu %x approximate = none : tensor<256x256xf16>
  return %0 : tensor<256x256xf16>
}
// f32 arguments whose GELU is only cast to bf16: rounded to bf16 too.
func.func @gelu_f32_to_bf16(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<1024x1024xf32>
  %1 = fuse.cast %0 : tensor<1024x1024xf32> to tensor<1024x1024xbf16>
  return %1 : tensor<1024x1024xbf16>
}
