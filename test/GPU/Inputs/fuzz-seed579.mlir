// fuzz-graphs.py seed 579
func.func @g(%a0: tensor<3x17xf16>, %a1: tensor<17xf16>) -> (tensor<17xf16>) {
  %v0 = fuse.reciprocal %a1 : tensor<17xf16>
  %v1 = fuse.reciprocal %v0 : tensor<17xf16>
  %v2 = fuse.constant dense<-1.0> : tensor<f16>
  %v3 = fuse.pow %v1, %v2 : (tensor<17xf16>, tensor<f16>) -> tensor<17xf16>
  %v4 = fuse.compare le, %v3, %v0 : (tensor<17xf16>, tensor<17xf16>) -> tensor<17xi1>
  %v5 = fuse.select %v4, %v0, %v1 : (tensor<17xi1>, tensor<17xf16>, tensor<17xf16>) -> tensor<17xf16>
  return %v5 : tensor<17xf16>
}
