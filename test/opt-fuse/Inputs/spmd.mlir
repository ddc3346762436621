// SPMD models for --devices=2: a tensor-parallel MLP (Megatron style: W1
// split by columns, W2 by rows, an all_reduce of the partial products) and
// a sequence-parallel block (each device holds half of the tokens: an
// all_gather before the work, a reduce_scatter after it).
func.func @tp_mlp(%x: tensor<16x32xf32>,
                  %w1: tensor<32x24xf32> {fuse.shard = 1 : i64},
                  %b1: tensor<24xf32> {fuse.shard = 0 : i64},
                  %w2: tensor<24x32xf32> {fuse.shard = 0 : i64},
                  %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fuse.matmul %x, %w1 : (tensor<16x32xf32>, tensor<32x24xf32>) -> tensor<16x24xf32>
  %1 = fuse.add %0, %b1 : (tensor<16x24xf32>, tensor<24xf32>) -> tensor<16x24xf32>
  %2 = fuse.relu %1 : tensor<16x24xf32>
  %3 = fuse.matmul %2, %w2 : (tensor<16x24xf32>, tensor<24x32xf32>) -> tensor<16x32xf32>
  %4 = fuse.all_reduce sum, %3 devices = 2 : tensor<16x32xf32>
  %5 = fuse.add %4, %b2 : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %6 = fuse.add %5, %x : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %6 : tensor<16x32xf32>
}

func.func @sequence_parallel(%x: tensor<64x32xbf16> {fuse.shard = 0 : i64}, %b: tensor<32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.all_gather %x axis = 0 devices = 2 : tensor<64x32xbf16> -> tensor<128x32xbf16>
  %1 = fuse.gelu %0 approximate = tanh : tensor<128x32xbf16>
  %2 = fuse.reduce_scatter sum, %1 axis = 0 devices = 2 : tensor<128x32xbf16> -> tensor<64x32xbf16>
  %3 = fuse.add %2, %b : (tensor<64x32xbf16>, tensor<32xbf16>) -> tensor<64x32xbf16>
  return %3 : tensor<64x32xbf16>
}
