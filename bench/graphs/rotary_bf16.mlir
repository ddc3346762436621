// Held out: Llama's rotary embedding on [B, S, H, D] written with slices
// and a concat, x * cos + concat(-x2, x1) * sin.
func.func @rotary_bf16(%x: tensor<4x2048x32x128xbf16>, %cos: tensor<2048x1x128xbf16>, %sin: tensor<2048x1x128xbf16>) -> tensor<4x2048x32x128xbf16> {
  %x1 = fuse.slice %x offsets = [0, 0, 0, 0] sizes = [4, 2048, 32, 64] strides = [1, 1, 1, 1] : tensor<4x2048x32x128xbf16> -> tensor<4x2048x32x64xbf16>
  %x2 = fuse.slice %x offsets = [0, 0, 0, 64] sizes = [4, 2048, 32, 64] strides = [1, 1, 1, 1] : tensor<4x2048x32x128xbf16> -> tensor<4x2048x32x64xbf16>
  %n = fuse.neg %x2 : tensor<4x2048x32x64xbf16>
  %r = fuse.concat %n, %x1 axis = 3 : (tensor<4x2048x32x64xbf16>, tensor<4x2048x32x64xbf16>) -> tensor<4x2048x32x128xbf16>
  %a = fuse.mul %x, %cos : (tensor<4x2048x32x128xbf16>, tensor<2048x1x128xbf16>) -> tensor<4x2048x32x128xbf16>
  %b = fuse.mul %r, %sin : (tensor<4x2048x32x128xbf16>, tensor<2048x1x128xbf16>) -> tensor<4x2048x32x128xbf16>
  %y = fuse.add %a, %b : (tensor<4x2048x32x128xbf16>, tensor<4x2048x32x128xbf16>) -> tensor<4x2048x32x128xbf16>
  return %y : tensor<4x2048x32x128xbf16>
}
