// One device's half of a tensor-parallel MLP (Megatron style) over 8
// devices: W1 is split by columns and W2 by rows, so each device computes a
// partial [8192, 4096] product that an all_reduce sums before the bias and
// residual. 11008 / 8 = 1376 hidden columns per device. The fuse.shard axes
// say how the global weights are split (--devices=8); x, b2 are replicated.
func.func @allreduce_mlp(%x: tensor<8192x4096xbf16>,
                         %w1: tensor<4096x1376xbf16> {fuse.shard = 1 : i64},
                         %b1: tensor<1376xbf16> {fuse.shard = 0 : i64},
                         %w2: tensor<1376x4096xbf16> {fuse.shard = 0 : i64},
                         %b2: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<8192x4096xbf16>, tensor<4096x1376xbf16>) -> tensor<8192x1376xbf16>
  %1 = fuse.add %0, %b1 : (tensor<8192x1376xbf16>, tensor<1376xbf16>) -> tensor<8192x1376xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<8192x1376xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %4 = fuse.all_reduce sum, %3 devices = 8 : tensor<8192x4096xbf16>
  %5 = fuse.add %4, %b2 : (tensor<8192x4096xbf16>, tensor<4096xbf16>) -> tensor<8192x4096xbf16>
  %6 = fuse.add %5, %x : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16>
  return %6 : tensor<8192x4096xbf16>
}
