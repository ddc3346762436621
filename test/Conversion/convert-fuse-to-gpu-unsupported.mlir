// RUN: opfuse-opt %s -split-input-file -convert-fuse-to-gpu -verify-diagnostics

// Ops the loop emitter cannot compile yet fail at their location.

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'fuse.matmul' is not yet supported for GPU emission}}
  %0 = fuse.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @reduction_in_group(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = fuse.group (%x) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error@+1 {{'fuse.reduce_sum' is not yet supported for GPU emission}}
    %s = fuse.reduce_sum %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fuse.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'fuse.softmax' is not yet supported for GPU emission}}
  %0 = fuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @all_reduce(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'fuse.all_reduce' is not yet supported for GPU emission}}
  %0 = fuse.all_reduce sum, %x devices = 2 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @outputs_of_two_shapes(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  // expected-error@+1 {{result #1 has shape [8] but result #0 has [4, 8]; a kernel's outputs share one shape}}
  %0:2 = fuse.group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %n = fuse.neg %c : tensor<8xf32>
    %s = fuse.add %a, %n : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    fuse.yield %s, %n : tensor<4x8xf32>, tensor<8xf32>
  }
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{a fuse.group without results has no kernel}}
  fuse.group (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield
  }
  return
}
