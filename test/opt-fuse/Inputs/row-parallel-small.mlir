// A row-parallel layer over 2 devices, small enough for the host
// reference: W is split by rows (the all_reduce sums the partial
// products), the bias is added after it.
func.func @row_parallel(%h: tensor<512x96xbf16>,
                        %w: tensor<96x64xbf16> {fuse.shard = 0 : i64},
                        %b: tensor<64xbf16>) -> tensor<512x64xbf16> {
  %p = fuse.matmul %h, %w : (tensor<512x96xbf16>, tensor<96x64xbf16>) -> tensor<512x64xbf16>
  %r = fuse.all_reduce sum, %p devices = 2 : tensor<512x64xbf16>
  %y = fuse.add %r, %b : (tensor<512x64xbf16>, tensor<64xbf16>) -> tensor<512x64xbf16>
  return %y : tensor<512x64xbf16>
}
