// Each collective as a plan step: a tensor-parallel MLP's all_reduce (in
// place, with the bias and residual after it fused into the next kernel),
// a sequence-parallel gather and scatter along the outermost axis.
func.func @gather_scatter(%x: tensor<64x32xbf16>, %b: tensor<32xbf16>) -> tensor<64x32xbf16> {
  %0 = fuse.all_gather %x axis = 0 devices = 2 : tensor<64x32xbf16> -> tensor<128x32xbf16>
  %1 = fuse.gelu %0 approximate = tanh : tensor<128x32xbf16>
  %2 = fuse.reduce_scatter sum, %1 axis = 0 devices = 2 : tensor<128x32xbf16> -> tensor<64x32xbf16>
  %3 = fuse.add %2, %b : (tensor<64x32xbf16>, tensor<32xbf16>) -> tensor<64x32xbf16>
  return %3 : tensor<64x32xbf16>
}
