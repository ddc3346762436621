// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of the data-movement ops.

// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %y: tensor<4x2xf32>,
                    %table: tensor<100x16xbf16>, %ids: tensor<2x3xi32>) {
  // CHECK: fuse.reshape %{{.*}} : tensor<4x8xf32> -> tensor<2x16xf32>
  %0 = fuse.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK: fuse.transpose %{{.*}} permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = fuse.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: fuse.broadcast_to %{{.*}} : tensor<8xf32> -> tensor<3x4x8xf32>
  %2 = fuse.broadcast_to %b : tensor<8xf32> -> tensor<3x4x8xf32>
  // CHECK: fuse.slice %{{.*}} offsets = [0, 2] sizes = [4, 3] strides = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
  %3 = fuse.slice %x offsets = [0, 2] sizes = [4, 3] strides = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
  // CHECK: fuse.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 1 : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x12xf32>
  %4 = fuse.concat %x, %y, %y axis = 1 : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x12xf32>
  // CHECK: fuse.concat %{{.*}} axis = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = fuse.concat %x axis = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuse.gather %{{.*}}, %{{.*}} axis = 0 : (tensor<100x16xbf16>, tensor<2x3xi32>) -> tensor<2x3x16xbf16>
  %6 = fuse.gather %table, %ids axis = 0 : (tensor<100x16xbf16>, tensor<2x3xi32>) -> tensor<2x3x16xbf16>
  // CHECK: fuse.gather %{{.*}}, %{{.*}} axis = 1 : (tensor<100x16xbf16>, tensor<2x3xi32>) -> tensor<100x2x3xbf16>
  %7 = fuse.gather %table, %ids axis = 1 : (tensor<100x16xbf16>, tensor<2x3xi32>) -> tensor<100x2x3xbf16>
  return
}
