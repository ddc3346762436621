// One GEMM small enough that only one tiling fits it on sm_80.
func.func @tiny(%a: tensor<64x96xbf16>, %b: tensor<96x32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<64x96xbf16>, tensor<96x32xbf16>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}
