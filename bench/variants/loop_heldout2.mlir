// A third held-out set for the loop kernels (written 2026-12-04, before the
// run that judged a wave-efficiency condition on unrolling, which the
// add_relu_f16 regression of bench/variants/loop_heldout.mlir suggested).
// Waves at 8 blocks of 256 threads per SM on 132 SMs, one and two vectors
// a thread:
//   add_f16       2500x2500 f16 add: 781,250 vectors; 2.89 and 1.45 waves
//   gelu_tanh     3000x3000 bf16 GELU (tanh): 1,125,000 vectors; 4.16, 2.08
//   erf_f32       1500x1500 f32 erf: 562,500 vectors; 2.08, 1.04
//   sigmoid_f32   2000x1999 f32 sigmoid: 999,500 vectors; 3.70, 1.85
//   mul_add_bf16  4096x3000 bf16 multiply-add: 1,536,000 vectors; 5.68, 2.84
func.func @add_f16(%a: tensor<2500x2500xf16>, %b: tensor<2500x2500xf16>) -> tensor<2500x2500xf16> {
  %0 = fuse.add %a, %b : (tensor<2500x2500xf16>, tensor<2500x2500xf16>) -> tensor<2500x2500xf16>
  return %0 : tensor<2500x2500xf16>
}
func.func @gelu_tanh(%x: tensor<3000x3000xbf16>) -> tensor<3000x3000xbf16> {
  %0 = fuse.gelu %x approximate = tanh : tensor<3000x3000xbf16>
  return %0 : tensor<3000x3000xbf16>
}
func.func @erf_f32(%x: tensor<1500x1500xf32>) -> tensor<1500x1500xf32> {
  %0 = fuse.erf %x : tensor<1500x1500xf32>
  return %0 : tensor<1500x1500xf32>
}
func.func @sigmoid_f32(%x: tensor<2000x1999xf32>) -> tensor<2000x1999xf32> {
  %0 = fuse.sigmoid %x : tensor<2000x1999xf32>
  return %0 : tensor<2000x1999xf32>
}
func.func @mul_add_bf16(%a: tensor<4096x3000xbf16>, %b: tensor<4096x3000xbf16>, %c: tensor<4096x3000xbf16>) -> tensor<4096x3000xbf16> {
  %0 = fuse.mul %a, %b : (tensor<4096x3000xbf16>, tensor<4096x3000xbf16>) -> tensor<4096x3000xbf16>
  %1 = fuse.add %0, %c : (tensor<4096x3000xbf16>, tensor<4096x3000xbf16>) -> tensor<4096x3000xbf16>
  return %1 : tensor<4096x3000xbf16>
}
