// f32 4096^3 (137 GFLOP): f32 FMAs by default, TF32 with --allow-tf32.
func.func @matmul_f32_4096(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fuse.matmul %a, %b : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
