// Collectives with a communicator of one rank (devices = 1): each is the
// identity, run through NCCL on the kernels' stream between kernels.
func.func @one_rank(%x: tensor<64x32xbf16>, %b: tensor<32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.gelu %x approximate = tanh : tensor<64x32xbf16>
  %1 = fuse.all_reduce sum, %0 devices = 1 : tensor<64x32xbf16>
  %2 = fuse.add %1, %b : (tensor<64x32xbf16>, tensor<32xbf16>) -> tensor<64x32xbf16>
  %3 = fuse.all_gather %2 axis = 0 devices = 1 : tensor<64x32xbf16> -> tensor<64x32xbf16>
  %4 = fuse.exp %3 : tensor<64x32xbf16>
  %5 = fuse.reduce_scatter max, %4 axis = 0 devices = 1 : tensor<64x32xbf16> -> tensor<64x32xbf16>
  %6 = fuse.mul %5, %x : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %6 : tensor<64x32xbf16>
}
