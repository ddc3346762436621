// A concat whose first input computes an exp: evaluating both inputs side
// by side would pay for the exp everywhere, so the kernel branches.
func.func @concat_exp(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>) -> tensor<64x64xf32> {
  %e = fuse.exp %a : tensor<64x32xf32>
  %c = fuse.concat %e, %b axis = 1 : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
