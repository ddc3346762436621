// examples/allreduce_mlp.mlir at small shapes (64 tokens, 32, 12 hidden columns per device) for the CPU tests.
// One device's half of a tensor-parallel MLP (Megatron style) over 8
// devices: W1 is split by columns and W2 by rows, so each device computes a
// partial [64, 32] product that an all_reduce sums before the bias and
// residual. 11008 / 8 = 12 hidden columns per device.
func.func @allreduce_mlp(%x: tensor<64x32xbf16>,
                         %w1: tensor<32x12xbf16> {fuse.shard = 1 : i64},
                         %b1: tensor<12xbf16> {fuse.shard = 0 : i64},
                         %w2: tensor<12x32xbf16> {fuse.shard = 0 : i64},
                         %b2: tensor<32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<64x32xbf16>, tensor<32x12xbf16>) -> tensor<64x12xbf16>
  %1 = fuse.add %0, %b1 : (tensor<64x12xbf16>, tensor<12xbf16>) -> tensor<64x12xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<64x12xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<64x12xbf16>, tensor<12x32xbf16>) -> tensor<64x32xbf16>
  %4 = fuse.all_reduce sum, %3 devices = 8 : tensor<64x32xbf16>
  %5 = fuse.add %4, %b2 : (tensor<64x32xbf16>, tensor<32xbf16>) -> tensor<64x32xbf16>
  %6 = fuse.add %5, %x : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %6 : tensor<64x32xbf16>
}
