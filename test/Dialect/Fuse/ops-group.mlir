// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of fuse.group and fuse.yield.

// CHECK-LABEL: func.func @group
func.func @group(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // CHECK: %[[R:.*]]:2 = fuse.group(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<8xf32>):
  // CHECK-NEXT: %[[S:.*]] = fuse.add %[[A]], %[[C]]
  // CHECK-NEXT: %[[T:.*]] = fuse.relu %[[S]]
  // CHECK-NEXT: %[[U:.*]] = fuse.reduce_sum %[[T]] axes = [1]
  // CHECK-NEXT: fuse.yield %[[T]], %[[U]] : tensor<4x8xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  %r:2 = fuse.group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %0 = fuse.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = fuse.relu %0 : tensor<4x8xf32>
    %2 = fuse.reduce_sum %1 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fuse.yield %1, %2 : tensor<4x8xf32>, tensor<4xf32>
  }
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4xf32>
}

// A group may hold a matmul and its epilogue, and take no inputs.
// CHECK-LABEL: func.func @group_constant
func.func @group_constant() -> tensor<2x2xf32> {
  // CHECK: fuse.group() : () -> tensor<2x2xf32>
  %r = fuse.group () : () -> tensor<2x2xf32> {
    %c = fuse.constant dense<1.0> : tensor<2x2xf32>
    %m = fuse.matmul %c, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    fuse.yield %m : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
