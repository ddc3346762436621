// Sequence-parallel activations gathered along the hidden axis: every row
// holds one shard per device, which NCCL's contiguous gather cannot place.
func.func @gather_hidden(%x: tensor<64x16xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.all_gather %x axis = 1 devices = 2 : tensor<64x16xbf16> -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}
