func.func @cast_only(%x: tensor<1024xf32>) -> tensor<1024xbf16> {
  %0 = fuse.cast %x : tensor<1024xf32> to tensor<1024xbf16>
  return %0 : tensor<1024xbf16>
}
