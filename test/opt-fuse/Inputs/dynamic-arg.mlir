func.func @f(%x: tensor<?x4xf32>) {
  return
}
