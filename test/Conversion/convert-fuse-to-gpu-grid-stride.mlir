// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=max-grid-blocks=4" | FileCheck %s --check-prefix=CAP

// Kernels with more blocks of work than their grid walk them in a
// grid-stride loop: from the block's index to the blocks needed, by the
// grid, each iteration ending at a block barrier (shared memory is reused
// by the next logical block). A relu over 9e12 bf16 (18 TB: more than
// CUDA's 2^31-1 blocks of 4096 elements) gets the largest grid CUDA
// allows; with max-grid-blocks=4 every kernel below is capped at 4.

// CHECK-LABEL: func.func @huge
// CHECK: fuse.grid = array<i64: 2147483647, 1, 1>
// CHECK: gpu.func @huge_k0
// CHECK: %[[BLOCK:.*]] = arith.index_castui %block_id_x : index to i64
// CHECK: scf.for %{{.*}} = %[[BLOCK]] to %c2197265625_i64 step %c2147483647_i64 : i64
// CHECK: gpu.barrier
// CHECK-NEXT: }
func.func @huge(%x: tensor<9000000000000xbf16>) -> tensor<9000000000000xbf16> {
  %0 = fuse.relu %x : tensor<9000000000000xbf16>
  return %0 : tensor<9000000000000xbf16>
}

// -----

// CHECK-LABEL: func.func @loop
// CHECK: fuse.grid = array<i64: 128, 1, 1>
// CHECK-NOT: scf.for
// CHECK: gpu.return
// CAP-LABEL: func.func @loop
// CAP: fuse.grid = array<i64: 4, 1, 1>
// CAP: scf.for %{{.*}} = %{{.*}} to %c128_i32 step %c4_i32 : i32
// CAP: llvm.store
// CAP: gpu.barrier
func.func @loop(%x: tensor<1024x256xbf16>) -> tensor<1024x256xbf16> {
  %0 = fuse.relu %x : tensor<1024x256xbf16>
  return %0 : tensor<1024x256xbf16>
}

// -----

// CAP-LABEL: func.func @rows
// CAP: fuse.grid = array<i64: 4, 1, 1>
// CAP: scf.for
// CAP: gpu.shuffle xor
// CAP: gpu.barrier
func.func @rows(%x: tensor<1000x512xf32>) -> tensor<1000x512xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<1000x512xf32>
  return %0 : tensor<1000x512xf32>
}

// -----

// CAP-LABEL: func.func @transposed
// CAP: fuse.grid = array<i64: 4, 1, 1>
// CAP: scf.for
// CAP: gpu.barrier
// CAP: gpu.barrier
func.func @transposed(%x: tensor<300x500xf32>) -> tensor<500x300xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<300x500xf32> -> tensor<500x300xf32>
  return %0 : tensor<500x300xf32>
}

// -----

// CAP-LABEL: func.func @sliced
// CAP: fuse.grid = array<i64: 4, 1, 1>
// CAP: scf.for
// CAP: gpu.barrier
func.func @sliced(%x: tensor<1000x300xf32>) -> tensor<1000x100xf32> {
  %0 = fuse.slice %x offsets = [0, 100] sizes = [1000, 100] strides = [1, 1] : tensor<1000x300xf32> -> tensor<1000x100xf32>
  %1 = fuse.exp %0 : tensor<1000x100xf32>
  return %1 : tensor<1000x100xf32>
}
