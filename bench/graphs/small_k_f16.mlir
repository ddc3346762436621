// Held out (not tuned on): an outer-product-like f16 GEMM, K = 64, ragged
// M and N (6000 x 5000): 57 MiB written for 1.4 MiB read.
func.func @small_k_f16(%a: tensor<6000x64xf16>, %b: tensor<64x5000xf16>) -> tensor<6000x5000xf16> {
  %0 = fuse.matmul %a, %b : (tensor<6000x64xf16>, tensor<64x5000xf16>) -> tensor<6000x5000xf16>
  return %0 : tensor<6000x5000xf16>
}
