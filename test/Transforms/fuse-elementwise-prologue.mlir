// RUN: opfuse-opt %s -split-input-file -fuse-elementwise=fuse-explain 2>&1 | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise="gemm-prologues=always" 2>&1 | FileCheck %s --check-prefix=ALWAYS
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise="gemm-prologues=never" 2>&1 | FileCheck %s --check-prefix=NEVER
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise="gemm-prologues=always fuse-explain" 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise="gemm-prologues=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// A matmul computes its A operand from the elementwise ops that produce it
// (a prologue on each K slice) where the cost model predicts it pays: where
// the ops' own kernel goes away (they read only the function's inputs),
// not where a reduction's kernel would only stop writing A.

// BAD: error: gemm-prologues=sometimes: expected auto, always or never

// Remarks come first (stderr), in the order the kernels are formed.
// CHECK: prologue.mlir:{{[0-9]+}}:8: remark: fuse-elementwise: fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:8: its kernel no longer running saves {{.*}} ns, recomputing it per column tile (1 tiles, 5 units an element) adds {{.*}} ns on h200
// CHECK: prologue.mlir:{{[0-9]+}}:8: remark: fuse-elementwise: not fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:9: A no longer written saves {{.*}} ns, recomputing it per column tile ({{[0-9]+}} tiles, 13 units an element) adds {{.*}} ns
// CHECK: prologue.mlir:{{[0-9]+}}:8: remark: fuse-elementwise: not fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:9: A no longer written saves
// CHECK: prologue.mlir:{{[0-9]+}}:8: remark: fuse-elementwise: not fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:9: A is also read by 'func.return' at {{[0-9]+}}:3, so it is written anyway
// CHECK: prologue.mlir:{{[0-9]+}}:8: remark: fuse-elementwise: not fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:9: it reads 2 values of A's shape; a GEMM copies one

// The relu's kernel goes: one GEMM kernel computes relu(x) per K slice.
// CHECK-LABEL: func.func @relu_a
// CHECK: fuse.group(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.relu
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.relu
// NEVER-LABEL: func.func @relu_a
// NEVER: fuse.relu
// NEVER-NEXT: fuse.yield
// NEVER: fuse.matmul
func.func @relu_a(%x: tensor<64x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %r = fuse.relu %x : tensor<64x64xbf16>
  %m = fuse.matmul %r, %w : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %m : tensor<64x32xbf16>
}

// -----

// A norm's second half (per-row statistic, per-column scale, casts) read
// only by two GEMMs: each could take a copy, but the statistic's kernel
// stays and only stops writing A, less than the copies would recompute
// for every column tile. With always, both GEMMs take one; the statistic's
// kernel then writes the statistic alone, and the scale's cast to f32 is
// evaluated per element inside each GEMM.
// CHECK-LABEL: func.func @norm_two_gemms
// CHECK-COUNT-3: fuse.group
// ALWAYS-LABEL: func.func @norm_two_gemms
// ALWAYS: %[[R:.*]] = fuse.group(%arg0) : (tensor<256x512xbf16>) -> tensor<256x1xf32>
// ALWAYS: fuse.reduce_mean
// ALWAYS: fuse.rsqrt
// ALWAYS: fuse.group(%arg0, %[[R]], %arg1, %arg2)
// ALWAYS: fuse.cast {{.*}} : tensor<512xbf16> to tensor<512xf32>
// ALWAYS: fuse.matmul
// ALWAYS: fuse.group(%arg0, %[[R]], %arg1, %arg3)
// ALWAYS: fuse.matmul
func.func @norm_two_gemms(%x: tensor<256x512xbf16>, %g: tensor<512xbf16>, %w1: tensor<512x1024xbf16>, %w2: tensor<512x1024xbf16>) -> (tensor<256x1024xbf16>, tensor<256x1024xbf16>) {
  %c = fuse.cast %x : tensor<256x512xbf16> to tensor<256x512xf32>
  %sq = fuse.mul %c, %c : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xf32>
  %ms = fuse.reduce_mean %sq axes = [1] keepdims : tensor<256x512xf32> -> tensor<256x1xf32>
  %eps = fuse.constant dense<1.0e-06> : tensor<f32>
  %e = fuse.add %ms, %eps : (tensor<256x1xf32>, tensor<f32>) -> tensor<256x1xf32>
  %r = fuse.rsqrt %e : tensor<256x1xf32>
  %n = fuse.mul %c, %r : (tensor<256x512xf32>, tensor<256x1xf32>) -> tensor<256x512xf32>
  %g32 = fuse.cast %g : tensor<512xbf16> to tensor<512xf32>
  %s = fuse.mul %n, %g32 : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %y = fuse.cast %s : tensor<256x512xf32> to tensor<256x512xbf16>
  %m1 = fuse.matmul %y, %w1 : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xbf16>
  %m2 = fuse.matmul %y, %w2 : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xbf16>
  return %m1, %m2 : tensor<256x1024xbf16>, tensor<256x1024xbf16>
}

// -----

// What a prologue cannot be: A also read by another op (it is written
// anyway), and A computed from two values of its shape (a GEMM copies one).
// ALWAYS-LABEL: func.func @refusals
// ALWAYS: fuse.add
// ALWAYS-NEXT: fuse.yield
// ALWAYS: fuse.relu
// ALWAYS-NEXT: fuse.yield
// ALWAYS: fuse.matmul
// ALWAYS: fuse.matmul
func.func @refusals(%x: tensor<64x64xbf16>, %z: tensor<64x64xbf16>, %w: tensor<64x32xbf16>) -> (tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x64xbf16>) {
  %a = fuse.add %x, %z : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %r = fuse.relu %x : tensor<64x64xbf16>
  %m1 = fuse.matmul %a, %w : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %m2 = fuse.matmul %r, %w : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %m1, %m2, %r : tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x64xbf16>
}

// -----

// A decode step's norm (4 rows of A): with always the prologue takes the
// statistic too (the reduction and what follows it per row) and the
// norm's kernel goes; by default the statistic keeps its kernel (measured
// faster on the H200), and so do 65 rows with always.
// STATS: remark: fuse-elementwise: fused as the prologue of 'fuse.matmul' at {{[0-9]+}}:8: --gemm-prologues=always (it reduces 1 per-row statistic(s) of A: every block would reduce its rows over K before its main loop and rewrite each K slice, measured slower than the norm's own kernel on decode GEMMs
// CHECK-LABEL: func.func @decode_norm
// CHECK: fuse.reduce_mean
// CHECK: fuse.yield
// CHECK: fuse.matmul
// ALWAYS-LABEL: func.func @decode_norm
// ALWAYS: fuse.group(%arg0, %arg1, %arg2)
// ALWAYS-NEXT: ^bb0
// ALWAYS: fuse.reduce_mean {{.*}} axes = [1] keepdims
// ALWAYS: fuse.rsqrt
// ALWAYS: fuse.matmul
// ALWAYS-NEXT: fuse.yield
// ALWAYS-NEXT: }
// ALWAYS-NEXT: return
// ALWAYS-LABEL: func.func @rows_65
// ALWAYS: fuse.reduce_mean
// ALWAYS: fuse.yield
// ALWAYS: fuse.group
// ALWAYS-NOT: fuse.reduce_mean
// ALWAYS: fuse.matmul
func.func @decode_norm(%x: tensor<4x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x4096xbf16>) -> tensor<4x4096xbf16> {
  %c = fuse.cast %x : tensor<4x2048xbf16> to tensor<4x2048xf32>
  %sq = fuse.mul %c, %c : (tensor<4x2048xf32>, tensor<4x2048xf32>) -> tensor<4x2048xf32>
  %ms = fuse.reduce_mean %sq axes = [1] keepdims : tensor<4x2048xf32> -> tensor<4x1xf32>
  %eps = fuse.constant dense<1.0e-06> : tensor<f32>
  %e = fuse.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = fuse.rsqrt %e : tensor<4x1xf32>
  %n = fuse.mul %c, %r : (tensor<4x2048xf32>, tensor<4x1xf32>) -> tensor<4x2048xf32>
  %g32 = fuse.cast %g : tensor<2048xbf16> to tensor<2048xf32>
  %s = fuse.mul %n, %g32 : (tensor<4x2048xf32>, tensor<2048xf32>) -> tensor<4x2048xf32>
  %y = fuse.cast %s : tensor<4x2048xf32> to tensor<4x2048xbf16>
  %m = fuse.matmul %y, %w : (tensor<4x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<4x4096xbf16>
  return %m : tensor<4x4096xbf16>
}
func.func @rows_65(%x: tensor<65x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x4096xbf16>) -> tensor<65x4096xbf16> {
  %c = fuse.cast %x : tensor<65x2048xbf16> to tensor<65x2048xf32>
  %sq = fuse.mul %c, %c : (tensor<65x2048xf32>, tensor<65x2048xf32>) -> tensor<65x2048xf32>
  %ms = fuse.reduce_mean %sq axes = [1] keepdims : tensor<65x2048xf32> -> tensor<65x1xf32>
  %eps = fuse.constant dense<1.0e-06> : tensor<f32>
  %e = fuse.add %ms, %eps : (tensor<65x1xf32>, tensor<f32>) -> tensor<65x1xf32>
  %r = fuse.rsqrt %e : tensor<65x1xf32>
  %n = fuse.mul %c, %r : (tensor<65x2048xf32>, tensor<65x1xf32>) -> tensor<65x2048xf32>
  %g32 = fuse.cast %g : tensor<2048xbf16> to tensor<2048xf32>
  %s = fuse.mul %n, %g32 : (tensor<65x2048xf32>, tensor<2048xf32>) -> tensor<65x2048xf32>
  %y = fuse.cast %s : tensor<65x2048xf32> to tensor<65x2048xbf16>
  %m = fuse.matmul %y, %w : (tensor<65x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<65x4096xbf16>
  return %m : tensor<65x4096xbf16>
}
