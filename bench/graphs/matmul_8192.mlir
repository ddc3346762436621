// The issue-7 GEMM target: bf16 8192 x 8192 x 8192 (1.1 TFLOP).
func.func @matmul_8192(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %0 : tensor<8192x8192xbf16>
}
