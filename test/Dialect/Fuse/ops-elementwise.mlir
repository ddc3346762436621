// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of the elementwise ops: unary, binary with broadcasting,
// compare, select, cast and constants.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<16xi32>, %h: tensor<8xbf16>) {
  // CHECK: fuse.neg %{{.*}} : tensor<4x8xf32>
  %0 = fuse.neg %x : tensor<4x8xf32>
  // CHECK: fuse.abs %{{.*}} : tensor<16xi32>
  %1 = fuse.abs %i : tensor<16xi32>
  // CHECK: fuse.exp %{{.*}} : tensor<4x8xf32>
  %2 = fuse.exp %x : tensor<4x8xf32>
  // CHECK: fuse.log %{{.*}} : tensor<8xbf16>
  %3 = fuse.log %h : tensor<8xbf16>
  // CHECK: fuse.sqrt
  %4 = fuse.sqrt %x : tensor<4x8xf32>
  // CHECK: fuse.rsqrt
  %5 = fuse.rsqrt %x : tensor<4x8xf32>
  // CHECK: fuse.tanh
  %6 = fuse.tanh %x : tensor<4x8xf32>
  // CHECK: fuse.sigmoid
  %7 = fuse.sigmoid %x : tensor<4x8xf32>
  // CHECK: fuse.relu %{{.*}} : tensor<16xi32>
  %8 = fuse.relu %i : tensor<16xi32>
  // CHECK: fuse.gelu %{{.*}} approximate = none : tensor<4x8xf32>
  %9 = fuse.gelu %x approximate = none : tensor<4x8xf32>
  // CHECK: fuse.gelu %{{.*}} approximate = tanh : tensor<8xbf16>
  %10 = fuse.gelu %h approximate = tanh : tensor<8xbf16>
  // CHECK: fuse.silu
  %11 = fuse.silu %x : tensor<4x8xf32>
  // CHECK: fuse.erf
  %12 = fuse.erf %x : tensor<4x8xf32>
  // CHECK: fuse.sin %{{.*}} : tensor<4x8xf32>
  %sin = fuse.sin %x : tensor<4x8xf32>
  // CHECK: fuse.cos %{{.*}} : tensor<8xbf16>
  %cos = fuse.cos %h : tensor<8xbf16>
  // CHECK: fuse.reciprocal
  %13 = fuse.reciprocal %x : tensor<4x8xf32>
  // CHECK: fuse.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
  %14 = fuse.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: fuse.cast %{{.*}} : tensor<16xi32> to tensor<16xi1>
  %15 = fuse.cast %i : tensor<16xi32> to tensor<16xi1>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4x8xf32>, %row: tensor<8xf32>, %col: tensor<4x1xf32>,
                  %s: tensor<f32>, %i: tensor<2x3xi64>, %j: tensor<3xi64>) {
  // CHECK: fuse.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = fuse.add %x, %row : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: fuse.sub %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %1 = fuse.sub %x, %col : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // Both operands broadcast: [4,1] with [8] gives [4,8].
  // CHECK: fuse.mul %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = fuse.mul %col, %row : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: fuse.div %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = fuse.div %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: fuse.max %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %4 = fuse.max %i, %j : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: fuse.min
  %5 = fuse.min %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuse.pow %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = fuse.pow %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%x: tensor<4x8xf32>, %t: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: %[[M:.*]] = fuse.compare gt, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
  %m = fuse.compare gt, %x, %t : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
  // CHECK: fuse.compare eq
  %e = fuse.compare eq, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuse.compare ne
  %n = fuse.compare ne, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuse.compare lt
  %l = fuse.compare lt, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuse.compare le
  %le = fuse.compare le, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuse.compare ge
  %ge = fuse.compare ge, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuse.select %[[M]], %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = fuse.select %m, %x, %t : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<f32>, tensor<2x2xi32>, tensor<4xbf16>, tensor<2x2xf32>) {
  // CHECK: fuse.constant dense<1.702000e+00> : tensor<f32>
  %0 = fuse.constant dense<1.702> : tensor<f32>
  // CHECK: fuse.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = fuse.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: fuse.constant dense<5.000000e-01> : tensor<4xbf16>
  %2 = fuse.constant dense<0.5> : tensor<4xbf16>
  // CHECK: fuse.constant dense_resource<weights> : tensor<2x2xf32>
  %3 = fuse.constant dense_resource<weights> : tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<2x2xi32>, tensor<4xbf16>, tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
