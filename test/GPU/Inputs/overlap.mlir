// A row-parallel layer in the chunks fuse-window-collectives makes of one,
// written out over one device so that one GPU runs the two streams: each
// chunk's GEMM leaves 16 SMs free and its all_reduce (NCCL, one rank: a
// copy) runs beside the next chunk's GEMM; the bias reads all four.
func.func @chunks(%h: tensor<4096x1024xbf16>, %w: tensor<1024x2048xbf16>,
                  %b: tensor<2048xbf16>) -> tensor<4096x2048xbf16> {
  %h0 = fuse.slice %h offsets = [0, 0] sizes = [1024, 1024] strides = [1, 1] : tensor<4096x1024xbf16> -> tensor<1024x1024xbf16>
  %p0 = fuse.matmul %h0, %w {fuse.overlap_sms = 16 : i64} : (tensor<1024x1024xbf16>, tensor<1024x2048xbf16>) -> tensor<1024x2048xbf16>
  %r0 = fuse.all_reduce sum, %p0 devices = 1 {fuse.overlap_sms = 16 : i64} : tensor<1024x2048xbf16>
  %h1 = fuse.slice %h offsets = [1024, 0] sizes = [1024, 1024] strides = [1, 1] : tensor<4096x1024xbf16> -> tensor<1024x1024xbf16>
  %p1 = fuse.matmul %h1, %w {fuse.overlap_sms = 16 : i64} : (tensor<1024x1024xbf16>, tensor<1024x2048xbf16>) -> tensor<1024x2048xbf16>
  %r1 = fuse.all_reduce sum, %p1 devices = 1 {fuse.overlap_sms = 16 : i64} : tensor<1024x2048xbf16>
  %h2 = fuse.slice %h offsets = [2048, 0] sizes = [1024, 1024] strides = [1, 1] : tensor<4096x1024xbf16> -> tensor<1024x1024xbf16>
  %p2 = fuse.matmul %h2, %w {fuse.overlap_sms = 16 : i64} : (tensor<1024x1024xbf16>, tensor<1024x2048xbf16>) -> tensor<1024x2048xbf16>
  %r2 = fuse.all_reduce sum, %p2 devices = 1 {fuse.overlap_sms = 16 : i64} : tensor<1024x2048xbf16>
  %h3 = fuse.slice %h offsets = [3072, 0] sizes = [1024, 1024] strides = [1, 1] : tensor<4096x1024xbf16> -> tensor<1024x1024xbf16>
  %p3 = fuse.matmul %h3, %w {fuse.overlap_sms = 16 : i64} : (tensor<1024x1024xbf16>, tensor<1024x2048xbf16>) -> tensor<1024x2048xbf16>
  %r3 = fuse.all_reduce sum, %p3 devices = 1 {fuse.overlap_sms = 16 : i64} : tensor<1024x2048xbf16>
  %j = fuse.concat %r0, %r1, %r2, %r3 axis = 0 : (tensor<1024x2048xbf16>, tensor<1024x2048xbf16>, tensor<1024x2048xbf16>, tensor<1024x2048xbf16>) -> tensor<4096x2048xbf16>
  %y = fuse.add %j, %b : (tensor<4096x2048xbf16>, tensor<2048xbf16>) -> tensor<4096x2048xbf16>
  return %y : tensor<4096x2048xbf16>
}
