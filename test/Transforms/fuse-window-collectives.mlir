// fuse-window-collectives: a matmul whose result only an all_reduce reads
// becomes row chunks, each a slice of the left operand, its matmul and its
// all_reduce (both marked fuse.overlap_sms), joined by a concat, where the
// two-stream schedule of the tile model beats the pair in a row; with
// fuse-explain a remark at each all_reduce of a matmul says what was
// predicted or why it stays whole.
// RUN: opfuse-opt %s -split-input-file -fuse-window-collectives | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-window-collectives=fuse-explain=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: opfuse-opt %s -split-input-file "-fuse-window-collectives=chunks=2 overlap-sms=8" | FileCheck %s --check-prefix=FORCED
// RUN: not opfuse-opt %s -split-input-file "-fuse-window-collectives=chunks=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-CHUNKS
// RUN: not opfuse-opt %s -split-input-file "-fuse-window-collectives=overlap-sms=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-SMS
// BAD-CHUNKS: error: fuse-window-collectives: chunks=5: expected 0 (the cost model chooses), 2, 3, 4, 6 or 8
// BAD-SMS: error: fuse-window-collectives: overlap-sms=0: expected 1 to 64
// A target with no more SMs than overlap-sms keeps the layer whole (and
// says why); a forced chunk count there is an error at the all_reduce.
// RUN: opfuse-opt %S/Inputs/window-four-sms.mlir "-fuse-window-collectives=fuse-explain=1" 2>&1 | FileCheck %s --check-prefix=FEW-SMS
// FEW-SMS: remark: fuse-window-collectives: left whole: overlap-sms=16 leaves no SM of four-sms's 4 to the GEMM
// FEW-SMS: %[[P:.*]] = fuse.matmul
// FEW-SMS-NEXT: fuse.all_reduce sum, %[[P]] devices = 8 :
// RUN: not opfuse-opt %S/Inputs/window-four-sms.mlir "-fuse-window-collectives=chunks=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FEW-SMS-FORCED
// FEW-SMS-FORCED: window-four-sms.mlir:6:10: error: fuse-window-collectives: overlap-sms=16 leaves no SM of four-sms's 4 to the GEMM

// The row-parallel half of examples/allreduce_mlp.mlir over 8 devices: the
// all_reduce (117 MB over the links) outweighs the GEMM, and eight chunks
// of 1024 rows hide most of the GEMM under it. The bias reads the concat.
// CHECK-LABEL: func.func @row_parallel
// CHECK-SAME: (%[[H:.*]]: tensor<8192x1376xbf16>, %[[W:.*]]: tensor<1376x4096xbf16>, %[[B:.*]]: tensor<4096xbf16>)
// CHECK: %[[A0:.*]] = fuse.slice %[[H]] offsets = [0, 0] sizes = [1024, 1376] strides = [1, 1]
// CHECK-NEXT: %[[P0:.*]] = fuse.matmul %[[A0]], %[[W]] {fuse.overlap_sms = 16 : i64} : (tensor<1024x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<1024x4096xbf16>
// CHECK-NEXT: %[[R0:.*]] = fuse.all_reduce sum, %[[P0]] devices = 8 {fuse.overlap_sms = 16 : i64} : tensor<1024x4096xbf16>
// CHECK-NEXT: %[[A1:.*]] = fuse.slice %[[H]] offsets = [1024, 0]
// CHECK-NEXT: %[[P1:.*]] = fuse.matmul %[[A1]], %[[W]] {fuse.overlap_sms = 16 : i64}
// CHECK-NEXT: %[[R1:.*]] = fuse.all_reduce sum, %[[P1]]
// CHECK-COUNT-5: fuse.slice %[[H]]
// CHECK: fuse.slice %[[H]] offsets = [7168, 0]
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: %[[R7:.*]] = fuse.all_reduce sum
// CHECK-NEXT: %[[J:.*]] = fuse.concat %[[R0]], %[[R1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[R7]] axis = 0 : (tensor<1024x4096xbf16>, {{.*}}, tensor<1024x4096xbf16>) -> tensor<8192x4096xbf16>
// CHECK-NEXT: %[[Y:.*]] = fuse.add %[[J]], %[[B]]
// CHECK-NEXT: return %[[Y]]
// EXPLAIN: remark: fuse-window-collectives: 8 chunks predicted at 305.85 us, 399.20 us whole, the GEMMs leaving 16 SMs to NCCL
// FORCED-LABEL: func.func @row_parallel
// FORCED: fuse.slice %{{.*}} offsets = [0, 0] sizes = [4096, 1376]
// FORCED-NEXT: fuse.matmul {{.*}} {fuse.overlap_sms = 8 : i64}
// FORCED-NEXT: fuse.all_reduce sum, {{.*}} {fuse.overlap_sms = 8 : i64}
// FORCED: fuse.slice %{{.*}} offsets = [4096, 0] sizes = [4096, 1376]
// FORCED: fuse.concat {{.*}} axis = 0 : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8192x4096xbf16>
func.func @row_parallel(%h: tensor<8192x1376xbf16>, %w: tensor<1376x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<8192x4096xbf16> {
  %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
  %y = fuse.add %r, %b : (tensor<8192x4096xbf16>, tensor<4096xbf16>) -> tensor<8192x4096xbf16>
  return %y : tensor<8192x4096xbf16>
}

// -----

// Tokens as [1, S, H]: the chunks would cut axis 1 (axis 0 is 1), but over
// 4 devices the all_reduce is short beside the GEMM, whose chunks lose
// waves on 116 SMs (the best, 8 chunks, saves under 1%); forced, two
// chunks cut axis 1.
// CHECK-LABEL: func.func @tokens_3d
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.all_reduce
// EXPLAIN: remark: fuse-window-collectives: left whole: no gain predicted: 8 chunks predicted at 247.94 us, 250.06 us whole
// FORCED-LABEL: func.func @tokens_3d
// FORCED: fuse.slice %{{.*}} offsets = [0, 0, 0] sizes = [1, 2048, 2752] strides = [1, 1, 1]
// FORCED: fuse.slice %{{.*}} offsets = [0, 2048, 0] sizes = [1, 2048, 2752]
// FORCED: fuse.concat {{.*}} axis = 1
func.func @tokens_3d(%h: tensor<1x4096x2752xbf16>, %w: tensor<2752x4096xbf16>) -> tensor<1x4096x4096xbf16> {
  %p = fuse.matmul %h, %w : (tensor<1x4096x2752xbf16>, tensor<2752x4096xbf16>) -> tensor<1x4096x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 4 : tensor<1x4096x4096xbf16>
  %y = fuse.relu %r : tensor<1x4096x4096xbf16>
  return %y : tensor<1x4096x4096xbf16>
}

// -----

// A small layer: two launches more cost more than they hide.
// CHECK-LABEL: func.func @small
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: no gain predicted: 2 chunks predicted at 7.87 us, 4.99 us whole
// FORCED-LABEL: func.func @small
// FORCED: fuse.slice %{{.*}} offsets = [128, 0] sizes = [128, 64]
func.func @small(%h: tensor<256x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<256x64xbf16> {
  %p = fuse.matmul %h, %w : (tensor<256x64xbf16>, tensor<64x64xbf16>) -> tensor<256x64xbf16>
  %r = fuse.all_reduce sum, %p devices = 2 : tensor<256x64xbf16>
  %y = fuse.relu %r : tensor<256x64xbf16>
  return %y : tensor<256x64xbf16>
}

// -----

// CHECK-LABEL: func.func @one_device
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: one device: there is nothing to send
// FORCED-LABEL: func.func @one_device
// FORCED-NOT: fuse.slice
func.func @one_device(%h: tensor<8192x1376xbf16>, %w: tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16> {
  %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 1 : tensor<8192x4096xbf16>
  %y = fuse.relu %r : tensor<8192x4096xbf16>
  return %y : tensor<8192x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @returned_too
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: the matmul's result has users besides the all_reduce
// FORCED-LABEL: func.func @returned_too
// FORCED-NOT: fuse.slice
func.func @returned_too(%h: tensor<8192x1376xbf16>, %w: tensor<1376x4096xbf16>) -> (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) {
  %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
  return %r, %p : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @read_by_matmul
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: its result is read by 'fuse.matmul', not elementwise: the chunks would be joined in memory
// FORCED-LABEL: func.func @read_by_matmul
// FORCED-NOT: fuse.slice
func.func @read_by_matmul(%h: tensor<8192x1376xbf16>, %w: tensor<1376x4096xbf16>, %v: tensor<4096x128xbf16>) -> tensor<8192x128xbf16> {
  %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
  %y = fuse.matmul %r, %v : (tensor<8192x4096xbf16>, tensor<4096x128xbf16>) -> tensor<8192x128xbf16>
  return %y : tensor<8192x128xbf16>
}

// -----

// CHECK-LABEL: func.func @transposed
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: the matmul's left operand is transposed, so its rows are not contiguous
// FORCED-LABEL: func.func @transposed
// FORCED-NOT: fuse.slice
func.func @transposed(%h: tensor<1376x8192xbf16>, %w: tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16> {
  %p = fuse.matmul %h, %w transpose_a : (tensor<1376x8192xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
  %y = fuse.relu %r : tensor<8192x4096xbf16>
  return %y : tensor<8192x4096xbf16>
}

// -----

// 8000 rows: no count gives equal chunks of whole 128-row tiles.
// CHECK-LABEL: func.func @ragged
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: no chunk count gives equal chunks of whole 128-row tiles
// FORCED-LABEL: func.func @ragged
// FORCED-NOT: fuse.slice
func.func @ragged(%h: tensor<8000x1376xbf16>, %w: tensor<1376x4096xbf16>) -> tensor<8000x4096xbf16> {
  %p = fuse.matmul %h, %w : (tensor<8000x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8000x4096xbf16>
  %r = fuse.all_reduce sum, %p devices = 8 : tensor<8000x4096xbf16>
  %y = fuse.relu %r : tensor<8000x4096xbf16>
  return %y : tensor<8000x4096xbf16>
}

// -----

// A GEMM that outweighs its all_reduce: the chunks' idle SMs in their
// last waves cost more than the link time they hide.
// CHECK-LABEL: func.func @compute_heavy
// CHECK-NEXT: fuse.matmul
// EXPLAIN: remark: fuse-window-collectives: left whole: no gain predicted: 4 chunks predicted at 334.94 us, 240.61 us whole
// FORCED-LABEL: func.func @compute_heavy
// FORCED: fuse.slice %{{.*}} offsets = [4096, 0] sizes = [4096, 8192]
func.func @compute_heavy(%h: tensor<8192x8192xbf16>, %w: tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16> {
  %p = fuse.matmul %h, %w : (tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16>
  %r = fuse.all_reduce sum, %p devices = 2 : tensor<8192x1024xbf16>
  %y = fuse.relu %r : tensor<8192x1024xbf16>
  return %y : tensor<8192x1024xbf16>
}
