// One kernel whose plan test/GPU/plan-steps.test extends with copy and
// memset steps.
func.func @relu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = fuse.relu %x : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
