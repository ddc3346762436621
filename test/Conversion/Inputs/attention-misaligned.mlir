// q, k and v as views of a QKV projection whose rows are 388 bf16 (776
// bytes, not a multiple of 16): no tensor map can describe them.
func.func @misaligned(%qkv: tensor<2x200x388xbf16>) -> tensor<2x200x128xbf16> {
  %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x388xbf16> -> tensor<2x200x128xbf16>
  %ks = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x388xbf16> -> tensor<2x200x128xbf16>
  %vs = fuse.slice %qkv offsets = [0, 0, 256] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x388xbf16> -> tensor<2x200x128xbf16>
  %qr = fuse.reshape %qs : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %kr = fuse.reshape %ks : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %vr = fuse.reshape %vs : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %q = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %k = fuse.transpose %kr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %v = fuse.transpose %vr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x2x200x64xbf16>, tensor<2x2x200x64xbf16>, tensor<2x2x200x64xbf16>) -> tensor<2x2x200x64xbf16>
  %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x2x200x64xbf16> -> tensor<2x200x2x64xbf16>
  %om = fuse.reshape %ot : tensor<2x200x2x64xbf16> -> tensor<2x200x128xbf16>
  return %om : tensor<2x200x128xbf16>
}
