// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s

// Rows of 1024 f32: a warp per row (32 threads x 8 vectors of 4), 8 rows
// per block of 256. The row is loaded once, reduced twice (5 xor shuffles
// each, no shared memory), and stored once.
// CHECK-LABEL: func.func @softmax_warp_per_row
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@softmax_warp_per_row_k0}
// CHECK: gpu.func @softmax_warp_per_row_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// CHECK-COUNT-8: llvm.load {{.*}} -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-5: gpu.shuffle  xor {{.*}} : f32
// CHECK-COUNT-8: math.exp
// CHECK-COUNT-5: gpu.shuffle  xor {{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.load
// CHECK: gpu.return
func.func @softmax_warp_per_row(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

// Rows of 4096 f32: 128 threads per row, two rows per block. The mean is
// one level; the corrected mean and the mean of squares, independent of
// each other, share the next: each level combines its four warps through
// one shared-memory slot per warp and reduction, and one barrier.
// CHECK-LABEL: func.func @layernorm_block_per_row
// CHECK: fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>
// CHECK: gpu.func @layernorm_block_per_row_k0({{.*}}) workgroup(%[[S0:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[S1:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[S2:.*]] : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.store %{{.*}}, %[[S0]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[S0]]
// CHECK: memref.store %{{.*}}, %[[S1]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S2]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt
func.func @layernorm_block_per_row(%x: tensor<16x4096xf32>, %g: tensor<4096xf32>,
                                   %b: tensor<4096xf32>) -> tensor<16x4096xf32> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<16x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  return %0 : tensor<16x4096xf32>
}

// -----

// Rows of 65536 f32 exceed 1024 threads x 32 registers: streamed, one pass
// per reduction and one for the output, each an scf.for of 16 steps.
// CHECK-LABEL: func.func @softmax_streamed
// CHECK: fuse.block = array<i64: 1024, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 4, 1, 1>
// CHECK: scf.for %{{.*}} = %c0_i32{{.*}} to %c16_i32{{.*}} step %c1_i32{{.*}} iter_args
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0_i32{{.*}} to %c16_i32{{.*}} step %c1_i32{{.*}} iter_args
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: llvm.store
func.func @softmax_streamed(%x: tensor<4x65536xf32>) -> tensor<4x65536xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<4x65536xf32>
  return %0 : tensor<4x65536xf32>
}

// -----

// bf16 rows of 1000: vectors of 8 (125 per row), 32 threads holding 4 each;
// the last vector slot is outside the row for most threads: it reads a
// vector inside the row, folds the identity instead, and does not store.
// Nine rows leave the second block with one row: the others recompute it
// and store nothing.
// CHECK-LABEL: func.func @masked
// CHECK: fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 2, 1, 1>
// CHECK: arith.minui %[[ROW:.*]], %c8_i32
// CHECK: arith.minui %[[SLOT:.*]], %c124_i32
// CHECK: llvm.load {{.*}} -> vector<8xbf16>
// CHECK: %[[ROWOK:.*]] = arith.cmpi ult, %[[ROW]], %c9_i32
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[SLOT]], %c125_i32
// CHECK: arith.select %[[OK]]
// CHECK: %[[STORE:.*]] = arith.andi %[[OK]], %[[ROWOK]]
// CHECK: scf.if %[[STORE]]
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<1>
func.func @masked(%x: tensor<9x1000xbf16>) -> tensor<9x1000xbf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<9x1000xbf16>
  return %0 : tensor<9x1000xbf16>
}

// -----

// A sum over the leading dimension (strided rows): 4 results, so 8 lanes
// (one 32-byte sector) take neighbouring results and the 64 threads of
// each split its 64 reduced elements, one each, held in registers. The
// threads of a result within a warp combine by xor shuffles 16 and 8 apart,
// then one shared-memory slot per warp and result, one barrier.
// CHECK-LABEL: func.func @column_sum
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 512, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 1, 1, 1>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.reduce_sum {{.*}} axes = [0]
// CHECK: gpu.func @column_sum_k0({{.*}}) workgroup(%[[S:.*]] : memref<128xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT: scf.for
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.load %[[S]]
// CHECK-NOT: memref.load %[[S]]
// CHECK: gpu.return
func.func @column_sum(%x: tensor<64x4xf32>) -> tensor<4xf32> {
  %0 = fuse.reduce_sum %x axes = [0] : tensor<64x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Softmax over the leading axis is one strided-row kernel: 64 columns of
// 20000 elements, 8 per block (8 blocks), 128 threads per column. A column
// is too long for registers, so the maximum, the sum of exponentials and
// the output are three passes over it, each unrolled 4 times (4 loads in
// flight per thread). The output pass multiplies by the column sum's
// reciprocal, computed once before it (RowDivision.cpp).
// CHECK-LABEL: func.func @softmax_columns
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 1024, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>
// CHECK: gpu.func @softmax_columns_k0
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-COUNT-4: math.exp
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK: scf.for
// CHECK-NOT: arith.divf
// CHECK: math.fma
// CHECK-NOT: arith.divf
// CHECK: llvm.store
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @softmax_columns(%x: tensor<20000x64xf32>) -> tensor<20000x64xf32> {
  %0 = fuse.softmax %x axis = 0 : tensor<20000x64xf32>
  return %0 : tensor<20000x64xf32>
}

// -----

// A per-row output is stored by the first thread of its row; an i64 sum
// crosses the shuffles as two 32-bit halves.
// CHECK-LABEL: func.func @row_sum_i64
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK: gpu.shuffle  xor {{.*}} : i32
// CHECK: gpu.shuffle  xor {{.*}} : i32
// CHECK: scf.if %[[FIRST]]
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
func.func @row_sum_i64(%x: tensor<32x256xi64>) -> tensor<32xi64> {
  %0 = fuse.reduce_sum %x axes = [1] : tensor<32x256xi64> -> tensor<32xi64>
  return %0 : tensor<32xi64>
}

// -----

// A grid of at most half the threads the GPU holds (8 rows of a decode
// step: 4 blocks) loads what its output pass needs (the scale) with the
// row, before the first reduction, and computes every position of that
// pass before it stores any: one trip to memory. A larger grid loads the
// scale after the reduction and stores each position as it is computed,
// keeping registers (and so occupancy) for the warps that hide the
// latency there.
// CHECK-LABEL: gpu.func @rmsnorm_small_grid_k0
// CHECK-COUNT-8: llvm.load {{.*}} -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: gpu.barrier
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @rmsnorm_small_grid(%x: tensor<8x4096xbf16>, %g: tensor<4096xbf16>) -> tensor<8x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
  return %0 : tensor<8x4096xbf16>
}

// -----

// CHECK-LABEL: gpu.func @rmsnorm_large_grid_k0
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<1>
// CHECK: llvm.load {{.*}} -> vector<8xbf16>
// CHECK: gpu.return
func.func @rmsnorm_large_grid(%x: tensor<16384x4096xbf16>, %g: tensor<4096xbf16>) -> tensor<16384x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<16384x4096xbf16>, tensor<4096xbf16>) -> tensor<16384x4096xbf16>
  return %0 : tensor<16384x4096xbf16>
}

// -----

// A small grid whose inputs' vectors would not fit in half a thread's
// registers (64 rows of 32768 f32, blocks of 1024 threads, so 64 registers
// a thread; x, scale and bias take 96) loads the scale and bias after the
// reductions, where they do not spill.
// CHECK-LABEL: gpu.func @layernorm_wide_k0
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} -> vector<4xf32>
// CHECK: llvm.store
// CHECK: gpu.return
func.func @layernorm_wide(%x: tensor<64x32768xf32>, %g: tensor<32768xf32>, %b: tensor<32768xf32>) -> tensor<64x32768xf32> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05 : (tensor<64x32768xf32>, tensor<32768xf32>, tensor<32768xf32>) -> tensor<64x32768xf32>
  return %0 : tensor<64x32768xf32>
}
