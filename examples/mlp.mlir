// A transformer MLP block in bf16 with its residual:
//   y = gelu_tanh(x @ W1 + b1) @ W2 + b2 + x
// x: [8192 tokens, 4096], W1: [4096, 11008], W2: [11008, 4096].
// Two GEMMs of 2 * 8192 * 4096 * 11008 = 739 GFLOP each; the bias, GELU
// and residual belong in their epilogues.
func.func @mlp(%x: tensor<8192x4096xbf16>,
               %w1: tensor<4096x11008xbf16>, %b1: tensor<11008xbf16>,
               %w2: tensor<11008x4096xbf16>, %b2: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<8192x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<8192x11008xbf16>
  %1 = fuse.add %0, %b1 : (tensor<8192x11008xbf16>, tensor<11008xbf16>) -> tensor<8192x11008xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<8192x11008xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<8192x11008xbf16>, tensor<11008x4096xbf16>) -> tensor<8192x4096xbf16>
  %4 = fuse.add %3, %b2 : (tensor<8192x4096xbf16>, tensor<4096xbf16>) -> tensor<8192x4096xbf16>
  %5 = fuse.add %4, %x : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16>
  return %5 : tensor<8192x4096xbf16>
}
