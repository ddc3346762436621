// A second held-out set for the loop kernels (written 2026-12-04, before
// the run that judged the rule "unroll only where the unrolled grid fills
// the GPU's thread slots", which bench/heldout/ew_* had informed): shapes
// and op mixes no one tuned on. One function each, for
// opt-fuse --function=NAME --bench.
//   gelu_3d_f32   3x1000x999 f32 GELU (erf): ragged, 749k vectors
//   swiglu_bf16   8191x2731 bf16 SiLU times a gate: ragged, 2.8M vectors
//   add_relu_f16  1999x3001 f16 add and ReLU: ragged, 750k vectors
//   exp_f32       6000x1000 f32 exp and scale: 1.5M vectors, not a
//                 multiple of two blocks
//   max_i32       1500001 i32 max and add: 375k vectors and a tail
//   gelu_small    1000x1000 f32 GELU (erf): 250k vectors
func.func @gelu_3d_f32(%x: tensor<3x1000x999xf32>) -> tensor<3x1000x999xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<3x1000x999xf32>
  return %0 : tensor<3x1000x999xf32>
}
func.func @swiglu_bf16(%a: tensor<8191x2731xbf16>, %g: tensor<8191x2731xbf16>) -> tensor<8191x2731xbf16> {
  %0 = fuse.silu %a : tensor<8191x2731xbf16>
  %1 = fuse.mul %0, %g : (tensor<8191x2731xbf16>, tensor<8191x2731xbf16>) -> tensor<8191x2731xbf16>
  return %1 : tensor<8191x2731xbf16>
}
func.func @add_relu_f16(%a: tensor<1999x3001xf16>, %b: tensor<1999x3001xf16>) -> tensor<1999x3001xf16> {
  %0 = fuse.add %a, %b : (tensor<1999x3001xf16>, tensor<1999x3001xf16>) -> tensor<1999x3001xf16>
  %1 = fuse.relu %0 : tensor<1999x3001xf16>
  return %1 : tensor<1999x3001xf16>
}
func.func @exp_f32(%x: tensor<6000x1000xf32>) -> tensor<6000x1000xf32> {
  %c = fuse.constant dense<0.5> : tensor<f32>
  %0 = fuse.exp %x : tensor<6000x1000xf32>
  %1 = fuse.mul %0, %c : (tensor<6000x1000xf32>, tensor<f32>) -> tensor<6000x1000xf32>
  return %1 : tensor<6000x1000xf32>
}
func.func @max_i32(%a: tensor<1500001xi32>, %b: tensor<1500001xi32>) -> tensor<1500001xi32> {
  %0 = fuse.max %a, %b : (tensor<1500001xi32>, tensor<1500001xi32>) -> tensor<1500001xi32>
  %1 = fuse.add %0, %b : (tensor<1500001xi32>, tensor<1500001xi32>) -> tensor<1500001xi32>
  return %1 : tensor<1500001xi32>
}
func.func @gelu_small(%x: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}
