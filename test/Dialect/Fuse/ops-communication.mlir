// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of the collectives.

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<64x512xbf16>) {
  // CHECK: fuse.all_reduce sum, %{{.*}} devices = 8 : tensor<64x512xbf16>
  %0 = fuse.all_reduce sum, %x devices = 8 : tensor<64x512xbf16>
  // CHECK: fuse.all_reduce max, %{{.*}} devices = 2 : tensor<64x512xbf16>
  %1 = fuse.all_reduce max, %x devices = 2 : tensor<64x512xbf16>
  // CHECK: fuse.all_gather %{{.*}} axis = 1 devices = 8 : tensor<64x512xbf16> -> tensor<64x4096xbf16>
  %2 = fuse.all_gather %x axis = 1 devices = 8 : tensor<64x512xbf16> -> tensor<64x4096xbf16>
  // CHECK: fuse.reduce_scatter sum, %{{.*}} axis = 0 devices = 8 : tensor<64x512xbf16> -> tensor<8x512xbf16>
  %3 = fuse.reduce_scatter sum, %x axis = 0 devices = 8 : tensor<64x512xbf16> -> tensor<8x512xbf16>
  return
}

// Collectives have effects: unused ones survive canonicalisation and CSE
// (every device must take part).
// RUN: opfuse-opt %s -canonicalize -cse | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @collectives
// KEEP-COUNT-2: fuse.all_reduce
// KEEP: fuse.all_gather
// KEEP: fuse.reduce_scatter

// An SPMD function's sharded arguments keep their axis.
// CHECK-LABEL: func.func @sharded
// CHECK-SAME: %{{.*}}: tensor<32x12xbf16> {fuse.shard = 1 : i64}, %{{.*}}: tensor<12xbf16>)
func.func @sharded(%w: tensor<32x12xbf16> {fuse.shard = 1 : i64}, %b: tensor<12xbf16>) {
  return
}
