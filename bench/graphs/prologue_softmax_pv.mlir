// GEMM prologue case: a causal-size softmax (16 heads of 2048 x 2048)
// feeding P.V with head dim 128, as in the Llama prefill block.
func.func @prologue_softmax_pv(%s: tensor<1x16x2048x2048xbf16>, %v: tensor<1x16x2048x128xbf16>) -> tensor<1x16x2048x128xbf16> {
  %0 = fuse.softmax %s axis = 3 : tensor<1x16x2048x2048xbf16>
  %1 = fuse.matmul %0, %v : (tensor<1x16x2048x2048xbf16>, tensor<1x16x2048x128xbf16>) -> tensor<1x16x2048x128xbf16>
  return %1 : tensor<1x16x2048x128xbf16>
}
