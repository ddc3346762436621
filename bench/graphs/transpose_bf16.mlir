// A materialised 2-D transpose of bf16 (the minor dimension moves).
func.func @transpose_bf16(%x: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %t : tensor<8192x8192xbf16>
}
