// RUN: opfuse-opt %s -split-input-file -fuse-decompose "-fuse-elementwise=gemm-prologues=always" -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=AUTO

// With gemm-prologues=always a decode step's RMSNorm before its projection
// (4 rows of A) is one GEMM kernel: the prologue holds the norm's
// statistic too. (By default the statistic keeps its kernel: measured
// faster on the H200.) The scale's loads for each slice are issued before
// the wait for the slice. After the wait for
// the grids before (B's first slices already in flight, A's after it),
// every block reduces its rows over the whole of K: in its 16-row tile on
// 64 threads, 16 threads a row (one 16-byte chunk of a 128-wide K slice
// each) read the row 128 elements apart, all 16 of a thread's loads
// unrolled so that they are in flight together, and combine with four
// butterfly shuffles. Only the first of the tile's four rounds of rows
// holds rows of A; the other three (rows 4-15, never stored) are neither
// reduced nor rewritten. Then the main loop rewrites each slice with the
// thread's row value.
// CHECK-LABEL: func.func @norm_proj
// CHECK: fuse.group
// CHECK-SAME: fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, cp_async>
// CHECK-SAME: fuse.matmul_tiling = #fuse.tiling<"16x64x128/1x2/4/k2">
// CHECK: fuse.reduce_mean {{.*}} axes = [1] keepdims
// CHECK: fuse.rsqrt
// CHECK: fuse.matmul
// CHECK-NOT: fuse.group
// CHECK: gpu.func @norm_proj_k0
// CHECK: griddepcontrol.wait
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: scf.for
// CHECK-COUNT-16: llvm.load {{.*}} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NOT: scf.for
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: scf.for {{.*}} iter_args
// CHECK: llvm.load {{.*}} -> vector<8xbf16>
// CHECK: nvvm.cp.async.wait.group 2
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
// AUTO-LABEL: func.func @norm_proj
// AUTO: fuse.reduce_mean
// AUTO: fuse.yield
// AUTO: fuse.group
// AUTO-NOT: fuse.reduce_mean
// AUTO: fuse.matmul
func.func @norm_proj(%x: tensor<4x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x4096xbf16>) -> tensor<4x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<4x2048xbf16>, tensor<2048xbf16>) -> tensor<4x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<4x4096xbf16>
  return %1 : tensor<4x4096xbf16>
}

// -----

// More rows than a block should reduce itself (65): the statistic keeps
// its kernel.
// CHECK-LABEL: func.func @norm_proj_65_rows
// CHECK: fuse.reduce_mean
// CHECK: fuse.yield
// CHECK: fuse.group
// CHECK-NOT: fuse.reduce_mean
// CHECK: fuse.matmul
func.func @norm_proj_65_rows(%x: tensor<65x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x4096xbf16>) -> tensor<65x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<65x2048xbf16>, tensor<2048xbf16>) -> tensor<65x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<65x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<65x4096xbf16>
  return %1 : tensor<65x4096xbf16>
}
