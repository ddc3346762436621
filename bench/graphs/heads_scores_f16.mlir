// Held out (not tuned on): attention scores of 24 heads of 64 over 1000
// tokens in f16 (ragged tiles on both sides of the output).
func.func @heads_scores_f16(%q: tensor<24x1000x64xf16>, %k: tensor<24x64x1000xf16>) -> tensor<24x1000x1000xf16> {
  %0 = fuse.matmul %q, %k : (tensor<24x1000x64xf16>, tensor<24x64x1000xf16>) -> tensor<24x1000x1000xf16>
  return %0 : tensor<24x1000x1000xf16>
}
