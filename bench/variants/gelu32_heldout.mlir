// f32 GELU (erf): the kernels that judge the one-piece f32 GELU (issue 23),
// written down before it was built. Tuning: bench/variants/f32_chain.mlir
// (@chain and @gelu_erf, 4097 x 1023). Held out, besides
// bench/variants/loop_heldout.mlir's @gelu_3d_f32 and @gelu_small:
//   ragged        f32 GELU, 5003 x 1999
//   bias_4d       f32 bias + GELU, 4 x 8 x 512 x 512
//   decode        f32 GELU, 8 x 4096 (launch-bound)
//   geglu         f32 GELU(a) * b, 3000 x 3000 (two inputs)
//   gemm_gelu     f32 1024x1024 @ 1024x4096 + bias, GELU in the epilogue
//   large         f32 GELU, 8192 x 8192 (memory-bound: must not regress)
func.func @ragged(%x: tensor<5003x1999xf32>) -> tensor<5003x1999xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<5003x1999xf32>
  return %0 : tensor<5003x1999xf32>
}
func.func @bias_4d(%x: tensor<4x8x512x512xf32>, %b: tensor<512xf32>) -> tensor<4x8x512x512xf32> {
  %0 = fuse.add %x, %b : (tensor<4x8x512x512xf32>, tensor<512xf32>) -> tensor<4x8x512x512xf32>
  %1 = fuse.gelu %0 approximate = none : tensor<4x8x512x512xf32>
  return %1 : tensor<4x8x512x512xf32>
}
func.func @decode(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<8x4096xf32>
  return %0 : tensor<8x4096xf32>
}
func.func @geglu(%a: tensor<3000x3000xf32>, %g: tensor<3000x3000xf32>) -> tensor<3000x3000xf32> {
  %0 = fuse.gelu %a approximate = none : tensor<3000x3000xf32>
  %1 = fuse.mul %0, %g : (tensor<3000x3000xf32>, tensor<3000x3000xf32>) -> tensor<3000x3000xf32>
  return %1 : tensor<3000x3000xf32>
}
func.func @gemm_gelu(%x: tensor<1024x1024xf32>, %w: tensor<1024x4096xf32>, %b: tensor<4096xf32>) -> tensor<1024x4096xf32> {
  %0 = fuse.matmul %x, %w : (tensor<1024x1024xf32>, tensor<1024x4096xf32>) -> tensor<1024x4096xf32>
  %1 = fuse.add %0, %b : (tensor<1024x4096xf32>, tensor<4096xf32>) -> tensor<1024x4096xf32>
  %2 = fuse.gelu %1 approximate = none : tensor<1024x4096xf32>
  return %2 : tensor<1024x4096xf32>
}
func.func @large(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<8192x8192xf32>
  return %0 : tensor<8192x8192xf32>
}
