// Held out (bench/heldout_kernels.py): decode-size f32 SiLU(a) * b
func.func @ew_decode_f32_swiglu(%a: tensor<4x11008xf32>, %b: tensor<4x11008xf32>) -> (tensor<4x11008xf32>) {
  %0 = fuse.silu %a : tensor<4x11008xf32>
  %1 = fuse.mul %0, %b : (tensor<4x11008xf32>, tensor<4x11008xf32>) -> tensor<4x11008xf32>
  return %1 : tensor<4x11008xf32>
}
