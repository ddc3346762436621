// RUN: opfuse-opt %s -split-input-file -canonicalize | FileCheck %s

// The trivial folds of the fuse dialect, and the cases that must not fold.

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_by_one(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = fuse.constant dense<1.0> : tensor<f32>
  %0 = fuse.mul %x, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = fuse.mul %one, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<8xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[I]], %[[X]], %[[X]]
func.func @add_zero(%x: tensor<4x8xf32>, %i: tensor<8xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = fuse.constant dense<0.0> : tensor<4x8xf32>
  %izero = fuse.constant dense<0> : tensor<i32>
  %one = fuse.constant dense<1.0> : tensor<8xf32>
  %0 = fuse.add %x, %zero : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = fuse.add %zero, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = fuse.add %i, %izero : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
  %3 = fuse.sub %x, %zero : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = fuse.div %x, %one : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xi32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An identity operand that broadcasts x to a larger shape changes the result
// type: no fold. 0 - x and 1 / x are not identities. 2 * x is not either.
// CHECK-LABEL: func.func @no_fold
// CHECK: fuse.add
// CHECK: fuse.sub
// CHECK: fuse.div
// CHECK: fuse.mul
// CHECK: fuse.mul
func.func @no_fold(%x: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %zero = fuse.constant dense<0.0> : tensor<4x8xf32>
  %z = fuse.constant dense<0.0> : tensor<f32>
  %one = fuse.constant dense<1.0> : tensor<f32>
  %two = fuse.constant dense<2.0> : tensor<f32>
  %mixed = fuse.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0]> : tensor<8xf32>
  %0 = fuse.add %x, %zero : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = fuse.sub %z, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = fuse.div %one, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = fuse.mul %x, %two : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = fuse.mul %x, %mixed : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = fuse.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_chain(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %0 = fuse.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = fuse.reshape %0 : tensor<2x16xf32> -> tensor<32xf32>
  %2 = fuse.reshape %1 : tensor<32xf32> -> tensor<4x8xf32>
  return %1, %2 : tensor<32xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = fuse.transpose %[[X]] permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[T]], %[[X]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  // Inverse permutations cancel.
  %0 = fuse.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = fuse.transpose %0 permutation = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  // Two rotations compose into one transpose: [1,2,0] then [1,2,0] is [2,0,1].
  %2 = fuse.transpose %0 permutation = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  // The identity permutation folds away.
  %3 = fuse.transpose %x permutation = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %1, %2, %3 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[C:.*]] = fuse.cast %[[X]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[C]]
func.func @same_type(%x: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>) {
  %0 = fuse.cast %x : tensor<4x8xbf16> to tensor<4x8xbf16>
  %1 = fuse.broadcast_to %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  %2 = fuse.cast %x : tensor<4x8xbf16> to tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>
}

// -----

// A transpose of a matmul operand's two minor dimensions becomes the
// operand's transpose flag (K^T in attention), so the GEMM reads it in
// place; the flag flips back when it was set.
// CHECK-LABEL: func.func @matmul_of_transposed
// CHECK-NOT: fuse.transpose
// CHECK: fuse.matmul %arg0, %arg1 transpose_b :
// CHECK: fuse.matmul %arg1, %arg0 transpose_b :
func.func @matmul_of_transposed(%q: tensor<2x8x16x64xbf16>, %k: tensor<2x8x16x64xbf16>) -> (tensor<2x8x16x16xbf16>, tensor<2x8x16x16xbf16>) {
  %kt = fuse.transpose %k permutation = [0, 1, 3, 2] : tensor<2x8x16x64xbf16> -> tensor<2x8x64x16xbf16>
  %s = fuse.matmul %q, %kt : (tensor<2x8x16x64xbf16>, tensor<2x8x64x16xbf16>) -> tensor<2x8x16x16xbf16>
  %t = fuse.matmul %kt, %q transpose_a transpose_b : (tensor<2x8x64x16xbf16>, tensor<2x8x16x64xbf16>) -> tensor<2x8x16x16xbf16>
  return %s, %t : tensor<2x8x16x16xbf16>, tensor<2x8x16x16xbf16>
}

// -----

// A transpose that also moves a batch dimension is not a flag.
// CHECK-LABEL: func.func @matmul_of_batch_transpose
// CHECK: fuse.transpose
func.func @matmul_of_batch_transpose(%a: tensor<4x8x16xbf16>, %b: tensor<16x8x4xbf16>) -> tensor<8x4x4xbf16> {
  %bt = fuse.transpose %b permutation = [1, 0, 2] : tensor<16x8x4xbf16> -> tensor<8x16x4xbf16>
  %at = fuse.transpose %a permutation = [1, 0, 2] : tensor<4x8x16xbf16> -> tensor<8x4x16xbf16>
  %c = fuse.matmul %at, %bt : (tensor<8x4x16xbf16>, tensor<8x16x4xbf16>) -> tensor<8x4x4xbf16>
  return %c : tensor<8x4x4xbf16>
}

// -----

// Reductions of a splat constant fold to a splat: a sum to the value times
// the reduced count (f32: 0.1 x 3 = 0.3 rounded once; i32 wraps: 2^30 x 5 =
// 5 x 2^30 mod 2^32 = 2^30), a maximum and a mean to the value itself.
// CHECK-LABEL: func.func @reduce_splat
// CHECK-DAG: %[[SUM:.*]] = fuse.constant dense<3.000000e-01> : tensor<4xf32>
// CHECK-DAG: %[[WRAP:.*]] = fuse.constant dense<1073741824> : tensor<2x1xi32>
// CHECK-DAG: %[[MAX:.*]] = fuse.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NOT: fuse.reduce
// CHECK: return %[[SUM]], %[[WRAP]], %[[MAX]], %[[MAX]]
func.func @reduce_splat() -> (tensor<4xf32>, tensor<2x1xi32>, tensor<f32>, tensor<f32>) {
  %c = fuse.constant dense<0.1> : tensor<4x3xf32>
  %i = fuse.constant dense<1073741824> : tensor<2x5xi32>
  %s = fuse.reduce_sum %c axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  %w = fuse.reduce_sum %i axes = [1] keepdims : tensor<2x5xi32> -> tensor<2x1xi32>
  %m = fuse.reduce_max %c axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %a = fuse.reduce_mean %c axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  return %s, %w, %m, %a : tensor<4xf32>, tensor<2x1xi32>, tensor<f32>, tensor<f32>
}
