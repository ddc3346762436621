func.func @f(%x: tensor<4xf32>) {
  %0 = fuse.relu %x :
}
