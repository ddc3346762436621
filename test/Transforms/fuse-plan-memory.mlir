// RUN: opfuse-opt %s -split-input-file -fuse-plan-memory | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-plan-memory=plan-outputs=1" | FileCheck %s --check-prefix=OUTPUTS
// RUN: opfuse-opt %s -split-input-file "-fuse-plan-memory=fuse-explain=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// An elementwise chain over 4 MiB values: each kernel writes over the value
// that dies in it, so the intermediates share one 4 MiB storage; the
// result is the caller's (-1). The reshape launches nothing and aliases.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: fuse.memory = #fuse.memory_plan<arena = 4194304, lower_bound = 4194304, naive = 12582912, in_place = 2, inputs = 4198400, constants = 0, outputs = 4194304, plan_outputs = false, order = "program", placement = "size">
// CHECK: fuse.exp {{.*}}fuse.offsets = array<i64: 0>
// CHECK: fuse.add {{.*}}fuse.offsets = array<i64: 0>
// CHECK: fuse.tanh {{.*}}fuse.offsets = array<i64: 0>
// CHECK: fuse.reshape
// CHECK: fuse.relu {{.*}}fuse.offsets = array<i64: -1>
// EXPLAIN: remark: fuse-plan-memory: writes chain_k1.out0 in place over chain_k0.out0, which dies in this kernel
// EXPLAIN: remark: fuse-plan-memory: writes chain_k2.out0 in place over chain_k1.out0, which dies in this kernel
// EXPLAIN: remark: fuse-plan-memory: arena 4194304 bytes, lower bound 4194304 (1.0000x), naive 12582912 (3.00x the arena); 4 kernels in program order, 2 in place, size placement
// With plan-outputs the result is in the arena too and lives to the end:
// relu writes it over tanh's dying value.
// OUTPUTS-LABEL: func.func @chain
// OUTPUTS-SAME: arena = 4194304
// OUTPUTS-SAME: in_place = 3
// OUTPUTS-SAME: outputs = 0
// OUTPUTS: fuse.relu {{.*}}fuse.offsets = array<i64: 0>
func.func @chain(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1048576xf32> {
  %0 = fuse.exp %x : tensor<1024x1024xf32>
  %1 = fuse.add %0, %b : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %2 = fuse.tanh %1 : tensor<1024x1024xf32>
  %3 = fuse.reshape %2 : tensor<1024x1024xf32> -> tensor<1048576xf32>
  %4 = fuse.relu %3 : tensor<1048576xf32>
  return %4 : tensor<1048576xf32>
}

// -----

// Program order computes both 64 KiB matmul results before reducing either
// (128.5 KiB live); the greedy order reduces each as soon as it exists
// (64 KiB + two 256-byte sums), and the pass moves the ops into that order.
// The second matmul reuses the first one's offset.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: lower_bound = 66048
// CHECK-SAME: order = "greedy"
// CHECK: %[[A:.*]] = fuse.matmul {{.*}}fuse.offsets = array<i64: 0>
// CHECK-NEXT: fuse.reduce_sum %[[A]]
// CHECK-NEXT: %[[B:.*]] = fuse.matmul {{.*}}fuse.offsets = array<i64: 0>
// CHECK-NEXT: fuse.reduce_sum %[[B]]
func.func @branches(%x: tensor<16x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<16x1xf32> {
  %a = fuse.matmul %x, %w : (tensor<16x1024xf32>, tensor<1024x1024xf32>) -> tensor<16x1024xf32>
  %b = fuse.matmul %x, %w : (tensor<16x1024xf32>, tensor<1024x1024xf32>) -> tensor<16x1024xf32>
  %ra = fuse.reduce_sum %a axes = [1] keepdims : tensor<16x1024xf32> -> tensor<16x1xf32>
  %rb = fuse.reduce_sum %b axes = [1] keepdims : tensor<16x1024xf32> -> tensor<16x1xf32>
  %s = fuse.add %ra, %rb : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
  return %s : tensor<16x1xf32>
}

// -----

// In-place writes only where they are safe. tanh may not write over exp's
// value (mul reads it later), add not over mul's (the transpose reads it
// later), the casts not over their inputs (the element width differs), the
// transpose not at all (a thread reads other threads' elements). mul writes
// over exp's value, which dies in it, and the last add over the cast's.
// CHECK-LABEL: func.func @unsafe
// CHECK-SAME: in_place = 2
// CHECK: fuse.exp {{.*}}fuse.offsets = array<i64: 0>
// CHECK-NEXT: fuse.tanh {{.*}}fuse.offsets = array<i64: 16384>
// CHECK-NEXT: fuse.mul {{.*}}fuse.offsets = array<i64: 0>
// CHECK-NEXT: fuse.add {{.*}}fuse.offsets = array<i64: 16384>
// CHECK-NEXT: fuse.cast {{.*}}fuse.offsets = array<i64: 32768>
// CHECK-NEXT: fuse.transpose {{.*}}fuse.offsets = array<i64: 16384>
// CHECK-NEXT: fuse.cast {{.*}}fuse.offsets = array<i64: 0>
// CHECK-NEXT: fuse.add {{.*}}fuse.offsets = array<i64: 0>
func.func @unsafe(%x: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<64x1xf32> {
  %0 = fuse.exp %x : tensor<64x64xf32>
  %1 = fuse.tanh %0 : tensor<64x64xf32>
  %2 = fuse.mul %0, %1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = fuse.add %2, %b : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %4 = fuse.cast %3 : tensor<64x64xf32> to tensor<64x64xbf16>
  %5 = fuse.transpose %2 permutation = [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %6 = fuse.cast %4 : tensor<64x64xbf16> to tensor<64x64xf32>
  %7 = fuse.add %6, %5 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = fuse.reduce_sum %7 axes = [1] keepdims : tensor<64x64xf32> -> tensor<64x1xf32>
  return %r : tensor<64x1xf32>
}

// -----

// A fused group is one kernel; it writes its result over an input that
// dies in it, and constants stay ahead of everything.
// CHECK-LABEL: func.func @groups
// CHECK-SAME: in_place = 1
// CHECK: fuse.constant
// CHECK: %[[G0:.*]] = fuse.group{{.*}}fuse.offsets = array<i64: 0>
// CHECK: fuse.group(%[[G0]]{{.*}}fuse.offsets = array<i64: 0>
func.func @groups(%x: tensor<256xf32>) -> tensor<256xf32> {
  %c = fuse.constant dense<1.0> : tensor<256xf32>
  %0 = fuse.group(%x, %c) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%a: tensor<256xf32>, %k: tensor<256xf32>):
    %1 = fuse.add %a, %k : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    fuse.yield %1 : tensor<256xf32>
  }
  %2 = fuse.group(%0) : (tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%a: tensor<256xf32>):
    %3 = fuse.exp %a : tensor<256xf32>
    fuse.yield %3 : tensor<256xf32>
  }
  %4 = fuse.group(%2) : (tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%a: tensor<256xf32>):
    %5 = fuse.relu %a : tensor<256xf32>
    fuse.yield %5 : tensor<256xf32>
  }
  return %4 : tensor<256xf32>
}

// -----

// A row kernel reads and writes the same positions of its row in every
// pass, so its per-element output goes over its dying per-element input
// (k1 over k0's exp); its per-row output does not go over a dying per-row
// input (k2), since every thread of a row reads that while the row's first
// thread writes.
// CHECK-LABEL: func.func @row_kernels
// CHECK-SAME: in_place = 1
// EXPLAIN: remark: fuse-plan-memory: writes row_kernels_k1.out0 in place over row_kernels_k0.out0, which dies in this kernel
// With plan-outputs k2's result is in the arena, and still not over k1's
// per-row output.
// OUTPUTS-LABEL: func.func @row_kernels
// OUTPUTS-SAME: in_place = 1
func.func @row_kernels(%x: tensor<256x1024xf32>) -> tensor<256x1xf32> {
  %0 = fuse.group(%x) : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  ^bb0(%a: tensor<256x1024xf32>):
    %e = fuse.exp %a : tensor<256x1024xf32>
    fuse.yield %e : tensor<256x1024xf32>
  }
  %1:2 = fuse.group(%0) : (tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<256x1xf32>) {
  ^bb0(%a: tensor<256x1024xf32>):
    %m = fuse.reduce_max %a axes = [1] keepdims : tensor<256x1024xf32> -> tensor<256x1xf32>
    %d = fuse.sub %a, %m : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
    fuse.yield %d, %m : tensor<256x1024xf32>, tensor<256x1xf32>
  }
  %2 = fuse.group(%1#0, %1#1) : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1xf32> {
  ^bb0(%a: tensor<256x1024xf32>, %m: tensor<256x1xf32>):
    %s = fuse.reduce_sum %a axes = [1] keepdims : tensor<256x1024xf32> -> tensor<256x1xf32>
    %t = fuse.add %s, %m : (tensor<256x1xf32>, tensor<256x1xf32>) -> tensor<256x1xf32>
    fuse.yield %t : tensor<256x1xf32>
  }
  return %2 : tensor<256x1xf32>
}
