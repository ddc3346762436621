// Held out (bench/heldout_kernels.py): i32 max and add over a million elements
func.func @ew_i32_max_add(%a: tensor<1000000xi32>, %b: tensor<1000000xi32>) -> (tensor<1000000xi32>) {
  %0 = fuse.max %a, %b : (tensor<1000000xi32>, tensor<1000000xi32>) -> tensor<1000000xi32>
  %1 = fuse.add %0, %b : (tensor<1000000xi32>, tensor<1000000xi32>) -> tensor<1000000xi32>
  return %1 : tensor<1000000xi32>
}
