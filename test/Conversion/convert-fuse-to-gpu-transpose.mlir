// A transpose's blocks take their tiles along the output's rows first
// (the input dimension that becomes the output's innermost): consecutive
// blocks write neighbouring segments of the same output rows, so a 32-byte
// sector that two tiles share is written by blocks that run together. On
// the H200 (docs/benchmarks.md) that took a 5001 x 3003 f32 transpose, whose
// output rows do not start on sectors, from 61.6% to 68.3% of copy.
// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s "-fuse-set-target=target=%S/../GPU/Inputs/h200-four-sms.json" -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=FOUR-SMS

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

// Output rows of 5050 f32 do not start on 32-byte sectors: the tile is
// skewed. It holds a sector's worth (8) of rows more, 80 tiles go across
// where straight ones take 79, and each slot reads the tile from the
// row where its output row's sector-aligned segment starts: 8 minus the
// row start's residue modulo 8.
// CHECK-LABEL: gpu.func @skewed_k0
// CHECK-SAME: workgroup(%{{.*}} : memref<72x65xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TILES:.*]] = arith.constant 80 : i32
// CHECK-NEXT: arith.remui %{{.*}}, %[[TILES]] : i32
// CHECK: gpu.barrier
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c5050_i32{{.*}} : i32
// CHECK: %[[LAG:.*]] = arith.remui %{{.*}}, %c8_i32{{.*}} : i32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.subi %c8_i32{{.*}}, %[[LAG]] : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[SHIFT]] : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @skewed(%x: tensor<5050x3003xf32>) -> tensor<3003x5050xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<5050x3003xf32> -> tensor<3003x5050xf32>
  return %0 : tensor<3003x5050xf32>
}

// 2-byte outputs, rows shorter than four tiles, grids of fewer than four
// tiles an SM, and epilogues that read an input at the output's index keep
// straight tiles (64 rows) and scalar stores on such rows (the second
// run: a target of 4 SMs, where the grid rule alone would allow skewing).
// CHECK-LABEL: gpu.func @straight_bf16_k0
// FOUR-SMS-LABEL: gpu.func @straight_bf16_k0
// FOUR-SMS-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: vector<
// CHECK: gpu.return
func.func @straight_bf16(%x: tensor<314x131xbf16>) -> tensor<131x314xbf16> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<314x131xbf16> -> tensor<131x314xbf16>
  return %0 : tensor<131x314xbf16>
}
// CHECK-LABEL: gpu.func @straight_reads_input_k0
// FOUR-SMS-LABEL: gpu.func @straight_reads_input_k0
// FOUR-SMS-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: vector<
// CHECK: gpu.return
func.func @straight_reads_input(%x: tensor<314x131xf32>, %y: tensor<131x314xf32>) -> tensor<131x314xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<314x131xf32> -> tensor<131x314xf32>
  %1 = fuse.add %0, %y : (tensor<131x314xf32>, tensor<131x314xf32>) -> tensor<131x314xf32>
  return %1 : tensor<131x314xf32>
}
// 18 tiles: straight on the H200's 132 SMs, skewed on a target of 4.
// CHECK-LABEL: gpu.func @small_grid_k0
// CHECK-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// FOUR-SMS-LABEL: gpu.func @small_grid_k0
// FOUR-SMS-SAME: workgroup(%{{.*}} : memref<72x65xf32, #gpu.address_space<workgroup>>)
func.func @small_grid(%x: tensor<314x131xf32>) -> tensor<131x314xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<314x131xf32> -> tensor<131x314xf32>
  return %0 : tensor<131x314xf32>
}
// CHECK-LABEL: gpu.func @straight_short_k0
// FOUR-SMS-LABEL: gpu.func @straight_short_k0
// FOUR-SMS-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: vector<
// CHECK: gpu.return
func.func @straight_short(%x: tensor<250x131xf32>) -> tensor<131x250xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<250x131xf32> -> tensor<131x250xf32>
  return %0 : tensor<131x250xf32>
}

// Rows that are whole 16-byte vectors on both sides, and a 4-byte tile:
// each thread loads four rows of a 4 x 4 block and stores its four
// columns as vectors into an unpadded tile, 16-byte groups swizzled by the
// row's block; phase two reads the output's vectors whole.
// CHECK-LABEL: gpu.func @blocked_k0
// CHECK-SAME: workgroup(%{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-COUNT-4: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: %[[SHIFTED:.*]] = arith.shrui %{{.*}}, %c2_i32{{.*}} : i32
// CHECK: %[[BLOCK:.*]] = arith.andi %{{.*}}, %c7_i32{{.*}} : i32
// CHECK-NEXT: %[[GROUP:.*]] = arith.xori %[[SHIFTED]], %[[BLOCK]] : i32
// CHECK-NEXT: arith.shli %[[GROUP]], %c2_i32{{.*}} : i32
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
func.func @blocked(%x: tensor<256x128xf32>) -> tensor<128x256xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<256x128xf32> -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// bf16 rows of whole 4-element vectors move as 4 x 4 blocks too, through
// the same f32 tile: 8-byte vectors of bf16 in global memory, 16-byte ones
// of f32 in shared memory (a padded tile costs eight 4-byte stores and
// eight loads for each 16 bytes of bf16).
// CHECK-LABEL: gpu.func @blocked_bf16_k0
// CHECK-SAME: workgroup(%{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
// CHECK-COUNT-4: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
func.func @blocked_bf16(%x: tensor<256x128xbf16>) -> tensor<128x256xbf16> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<256x128xbf16> -> tensor<128x256xbf16>
  return %0 : tensor<128x256xbf16>
}
