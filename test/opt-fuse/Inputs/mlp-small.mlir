// examples/mlp.mlir at small shapes (64 tokens, 32 -> 96 -> 32) for the CPU tests.
// A transformer MLP block in bf16 with its residual:
//   y = gelu_tanh(x @ W1 + b1) @ W2 + b2 + x
// x: [64 tokens, 32], W1: [32, 96], W2: [96, 32].
// Two GEMMs of 2 * 64 * 32 * 96 = 739 GFLOP each; the bias, GELU
// and residual belong in their epilogues.
func.func @mlp(%x: tensor<64x32xbf16>,
               %w1: tensor<32x96xbf16>, %b1: tensor<96xbf16>,
               %w2: tensor<96x32xbf16>, %b2: tensor<32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<64x32xbf16>, tensor<32x96xbf16>) -> tensor<64x96xbf16>
  %1 = fuse.add %0, %b1 : (tensor<64x96xbf16>, tensor<96xbf16>) -> tensor<64x96xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<64x96xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<64x96xbf16>, tensor<96x32xbf16>) -> tensor<64x32xbf16>
  %4 = fuse.add %3, %b2 : (tensor<64x32xbf16>, tensor<32xbf16>) -> tensor<64x32xbf16>
  %5 = fuse.add %4, %x : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %5 : tensor<64x32xbf16>
}
