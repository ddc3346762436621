// Loop kernels of a transpose's bytes: the ceiling a kernel of that size
// reaches against the 256 MB copy.
func.func @neg_5000x3000_f32(%x: tensor<5000x3000xf32>) -> tensor<5000x3000xf32> {
  %0 = fuse.neg %x : tensor<5000x3000xf32>
  return %0 : tensor<5000x3000xf32>
}
func.func @neg_5001x3003_f32(%x: tensor<5001x3003xf32>) -> tensor<5001x3003xf32> {
  %0 = fuse.neg %x : tensor<5001x3003xf32>
  return %0 : tensor<5001x3003xf32>
}
func.func @neg_2049x3001_f32(%x: tensor<2049x3001xf32>) -> tensor<2049x3001xf32> {
  %0 = fuse.neg %x : tensor<2049x3001xf32>
  return %0 : tensor<2049x3001xf32>
}
func.func @neg_8192x8192_f32(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %0 = fuse.neg %x : tensor<8192x8192xf32>
  return %0 : tensor<8192x8192xf32>
}
