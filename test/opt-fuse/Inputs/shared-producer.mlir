func.func @shared(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<4096xf32>) {
  %e = fuse.exp %x : tensor<64x64xf32>
  %r = fuse.reshape %e : tensor<64x64xf32> -> tensor<4096xf32>
  %y = fuse.mul %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y, %r : tensor<64x64xf32>, tensor<4096xf32>
}
