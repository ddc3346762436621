// The f32 FMA GEMM kernel of bench/graphs/matmul_f32_4096.mlir (tiling
// 128x128x32/4x4/3, the same code) at 1/64 of its work, so that
// scripts/gpu-sanitize.sh's racecheck finishes on it: the 4096 one did not
// in 240 s.
func.func @matmul_f32_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"128x128x32/4x4/3">} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
