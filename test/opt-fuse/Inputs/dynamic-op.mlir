func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = fuse.relu %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
