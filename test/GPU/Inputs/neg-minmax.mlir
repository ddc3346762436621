// Signed i32 min/max over negated values, as ptxas miscompiled them
// (fuse-serialize-kernels): a row maximum of -a over four elements a
// thread, an elementwise max(a, -b, c) and min(a, -b, c).
func.func @neg_minmax(%a: tensor<64x256xi32>, %b: tensor<64x256xi32>, %c: tensor<64x256xi32>) -> (tensor<64xi32>, tensor<64xi32>, tensor<64x256xi32>, tensor<64x256xi32>) {
  %na = fuse.neg %a : tensor<64x256xi32>
  %rmax = fuse.reduce_max %na axes = [1] : tensor<64x256xi32> -> tensor<64xi32>
  %nb = fuse.neg %b : tensor<64x256xi32>
  %rmin = fuse.reduce_sum %nb axes = [1] : tensor<64x256xi32> -> tensor<64xi32>
  %m0 = fuse.max %a, %nb : (tensor<64x256xi32>, tensor<64x256xi32>) -> tensor<64x256xi32>
  %m1 = fuse.max %m0, %c : (tensor<64x256xi32>, tensor<64x256xi32>) -> tensor<64x256xi32>
  %n0 = fuse.min %a, %nb : (tensor<64x256xi32>, tensor<64x256xi32>) -> tensor<64x256xi32>
  %n1 = fuse.min %n0, %c : (tensor<64x256xi32>, tensor<64x256xi32>) -> tensor<64x256xi32>
  return %rmax, %rmin, %m1, %n1 : tensor<64xi32>, tensor<64xi32>, tensor<64x256xi32>, tensor<64x256xi32>
}
