// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of reductions and normalisations.

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8x16xf32>, %i: tensor<4x8xi32>) {
  // CHECK: fuse.reduce_sum %{{.*}} axes = [2] keepdims : tensor<4x8x16xf32> -> tensor<4x8x1xf32>
  %0 = fuse.reduce_sum %x axes = [2] keepdims : tensor<4x8x16xf32> -> tensor<4x8x1xf32>
  // CHECK: fuse.reduce_sum %{{.*}} axes = [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  %1 = fuse.reduce_sum %x axes = [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  // CHECK: fuse.reduce_max %{{.*}} axes = [0, 1] : tensor<4x8xi32> -> tensor<i32>
  %2 = fuse.reduce_max %i axes = [0, 1] : tensor<4x8xi32> -> tensor<i32>
  // CHECK: fuse.reduce_mean %{{.*}} axes = [1] keepdims : tensor<4x8x16xf32> -> tensor<4x1x16xf32>
  %3 = fuse.reduce_mean %x axes = [1] keepdims : tensor<4x8x16xf32> -> tensor<4x1x16xf32>
  return
}

// CHECK-LABEL: func.func @normalisations
func.func @normalisations(%x: tensor<16x4096xf32>, %g: tensor<4096xf32>,
                          %b: tensor<4096xf32>, %h: tensor<2x3x8xbf16>,
                          %hg: tensor<3x8xbf16>) {
  // CHECK: fuse.softmax %{{.*}} axis = 1 : tensor<16x4096xf32>
  %0 = fuse.softmax %x axis = 1 : tensor<16x4096xf32>
  // CHECK: fuse.layer_norm %{{.*}} scale %{{.*}} bias %{{.*}} axis = 1 epsilon = 9.99999974E-6 : (tensor<16x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  %1 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<16x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  // CHECK: fuse.layer_norm %{{.*}} axis = 1 epsilon = {{.*}} : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %2 = fuse.layer_norm %x axis = 1 epsilon = 1.0e-05 : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  // Bias without scale keeps the operand segments straight.
  // CHECK: fuse.layer_norm %{{.*}} bias %{{.*}} axis = 1
  %3 = fuse.layer_norm %x bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<16x4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  // Normalising over the two trailing axes.
  // CHECK: fuse.layer_norm %{{.*}} scale %{{.*}} axis = 1 epsilon = {{.*}} : (tensor<2x3x8xbf16>, tensor<3x8xbf16>) -> tensor<2x3x8xbf16>
  %4 = fuse.layer_norm %h scale %hg axis = 1 epsilon = 1.0e-05
      : (tensor<2x3x8xbf16>, tensor<3x8xbf16>) -> tensor<2x3x8xbf16>
  // CHECK: fuse.rms_norm %{{.*}} scale %{{.*}} axis = 1 epsilon = 9.99999997E-7 : (tensor<16x4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  %5 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06
      : (tensor<16x4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  // CHECK: fuse.rms_norm %{{.*}} axis = 1 epsilon = {{.*}} : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %6 = fuse.rms_norm %x axis = 1 epsilon = 1.0e-06 : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return
}
