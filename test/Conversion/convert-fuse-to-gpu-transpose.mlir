// A transpose's blocks take their tiles along the output's rows first
// (the input dimension that becomes the output's innermost): consecutive
// blocks write neighbouring segments of the same output rows, so a 32-byte
// sector that two tiles share is written by blocks that run together. On
// the H200 (docs/benchmarks.md) that took a 5001 x 3003 f32 transpose, whose
// output rows do not start on sectors, from 61.6% to 68.3% of copy.
// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s

// 200 input rows (4 tiles of 64, the output's innermost dimension) by 100
// columns (2 tiles): block b takes across tile b % 4, inner tile b / 4.
// CHECK-LABEL: gpu.func @transpose_k0
// CHECK: %[[BLOCK:.*]] = arith.index_castui %block_id_x : index to i32
// CHECK-NEXT: %[[TILES_ACROSS:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[ACROSS_TILE:.*]] = arith.remui %[[BLOCK]], %[[TILES_ACROSS]] : i32
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[ACROSS:.*]] = arith.muli %[[ACROSS_TILE]], %[[SIZE]] : i32
// CHECK: %[[REST:.*]] = arith.divui %[[BLOCK]], %{{.*}} : i32
// CHECK-NEXT: %[[TILES_INNER:.*]] = arith.constant 2 : i32
// CHECK-NEXT: arith.remui %[[REST]], %[[TILES_INNER]] : i32
func.func @transpose(%x: tensor<200x100xf32>) -> tensor<100x200xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<200x100xf32> -> tensor<100x200xf32>
  return %0 : tensor<100x200xf32>
}
