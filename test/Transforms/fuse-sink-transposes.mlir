// fuse-sink-transposes (lib/Dialect/Fuse/Transforms/FuseSinkTransposes.cpp):
// transposes move down through elementwise ops, reductions, slices and
// concats until they meet their inverses; a region is rewritten only where
// it moves fewer bytes through transposes afterwards. The functions are in
// Inputs/sink-transposes.mlir, so that opt-fuse can run each of them too.
// RUN: opfuse-opt %S/Inputs/sink-transposes.mlir -fuse-sink-transposes | FileCheck %s
// Every region's remark once (a region left as it is, after the last round).
// RUN: opfuse-opt %S/Inputs/sink-transposes.mlir "-fuse-sink-transposes=fuse-explain=1" -o /dev/null 2>&1 | grep "remark:" | FileCheck %s --check-prefix=EXPLAIN
// The pass only moves data: the reference gives the same bits before and
// after the whole fusion pipeline, and so do the kernels.
// RUN: opt-fuse %S/Inputs/sink-transposes.mlir --each-function --check-fusion | FileCheck %s --check-prefix=SAME
// RUN: opt-fuse %S/Inputs/sink-transposes.mlir --each-function --check-on-host --chip=sm_80 | FileCheck %s --check-prefix=HOST
// RUN: opt-fuse %S/Inputs/sink-transposes.mlir --function=conv_block --emit=summary | FileCheck %s --check-prefix=SUMMARY
// RUN: opfuse-opt %S/Inputs/sink-transposes.mlir --pass-pipeline="builtin.module(func.func(fuse-decompose,fuse-sink-transposes))" | FileCheck %s --check-prefix=SOFTMAX
// RUN: opt-fuse %S/Inputs/sink-transposes.mlir --function=softmax_transposed --emit=summary | FileCheck %s --check-prefix=SOFTMAX-SUMMARY

// A convolution block as the ONNX importer writes it: NHWC convolutions
// between transposes, a batch norm and ReLU in NCHW. The norm's constants
// are permuted at compile time, the transposes around it cancel, and the
// residual add reads the input as the first convolution does (its
// transpose exists already). The pooled result's transpose moves only
// dimensions of size 1: a reshape.
// CHECK-LABEL: func.func @conv_block
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x6x6xf32>
// CHECK: %[[IN:.*]] = fuse.transpose %[[X]] permutation = [0, 2, 3, 1]
// CHECK-NEXT: %[[C1:.*]] = fuse.conv2d %[[IN]]
// CHECK-NEXT: %[[B:.*]] = fuse.add %[[C1]], %{{.*}} : (tensor<2x6x6x4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = fuse.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 5.000000e-01, -1.500000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK-NEXT: %[[M:.*]] = fuse.mul %[[B]], %[[S]] : (tensor<2x6x6x4xf32>, tensor<1x1x1x4xf32>)
// CHECK-NEXT: %[[H:.*]] = fuse.constant dense<2.500000e-01> : tensor<1x1x1x4xf32>
// CHECK-NEXT: %[[A:.*]] = fuse.add %[[M]], %[[H]]
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[A]] : tensor<2x6x6x4xf32>
// CHECK-NEXT: %[[C2:.*]] = fuse.conv2d %[[R]]
// CHECK-NEXT: %[[RES:.*]] = fuse.add %[[C2]], %[[IN]] : (tensor<2x6x6x4xf32>, tensor<2x6x6x4xf32>)
// CHECK-NEXT: %[[R2:.*]] = fuse.relu %[[RES]]
// CHECK-NEXT: %[[MEAN:.*]] = fuse.reduce_mean %[[R2]] axes = [1, 2] keepdims : tensor<2x6x6x4xf32> -> tensor<2x1x1x4xf32>
// CHECK-NEXT: %[[NCHW:.*]] = fuse.reshape %[[MEAN]] : tensor<2x1x1x4xf32> -> tensor<2x4x1x1xf32>
// CHECK-NEXT: fuse.reshape %[[NCHW]] : tensor<2x4x1x1xf32> -> tensor<2x4xf32>
// CHECK-NOT: fuse.transpose
// CHECK: return
// Four kernels, where the block took six before this pass (15040 bytes
// through memory, now 10432).
// SUMMARY: kernels: 13 unfused -> 4 fused
// SUMMARY-NEXT: device-memory bytes: 31184 unfused -> 10432 fused

// A max pool in NCHW (padding by a concat, strided slices, their maximum)
// on an NHWC result runs NHWC: the concat's axis, the slices' lists and
// the padding constant are permuted; the transpose before the second one
// composes with it, and the result goes back to NCHW once, at the return.
// CHECK-LABEL: func.func @pool
// CHECK-SAME: (%[[C:[^:]*]]: tensor<1x4x4x3xf32>)
// CHECK-NEXT: %[[PAD:.*]] = fuse.constant dense<0xFF800000> : tensor<1x1x4x3xf32>
// CHECK-NEXT: %[[CAT:.*]] = fuse.concat %[[C]], %[[PAD]] axis = 1 : (tensor<1x4x4x3xf32>, tensor<1x1x4x3xf32>) -> tensor<1x5x4x3xf32>
// CHECK-NEXT: %[[S0:.*]] = fuse.slice %[[CAT]] offsets = [0, 0, 0, 0] sizes = [1, 2, 2, 3] strides = [1, 2, 2, 1]
// CHECK-NEXT: %[[S1:.*]] = fuse.slice %[[CAT]] offsets = [0, 1, 1, 0] sizes = [1, 2, 2, 3] strides = [1, 2, 2, 1]
// CHECK-NEXT: %[[MAX:.*]] = fuse.max %[[S0]], %[[S1]] : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>)
// CHECK-NEXT: %[[NEG:.*]] = fuse.neg %[[MAX]] : tensor<1x2x2x3xf32>
// CHECK-NEXT: %[[OUT:.*]] = fuse.transpose %[[NEG]] permutation = [0, 3, 1, 2] : tensor<1x2x2x3xf32> -> tensor<1x3x2x2xf32>
// CHECK-NEXT: return %[[OUT]]

// A dense constant whose rows and columns swap (element by element), a
// broadcast operand that needs a transpose of its own, and a reduction
// without keepdims, whose result keeps the transpose of the dimensions
// left.
// CHECK-LABEL: func.func @operands
// CHECK-SAME: (%[[XO:[^:]*]]: tensor<8x2x4xf32>, %[[V:[^:]*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[VT:.*]] = fuse.transpose %[[V]] permutation = [1, 0]
// CHECK-NEXT: %[[K:.*]] = fuse.constant dense<{{\[\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]]]> : tensor<1x2x4xf32>
// CHECK-NEXT: %[[ADD:.*]] = fuse.add %[[XO]], %[[K]] : (tensor<8x2x4xf32>, tensor<1x2x4xf32>)
// CHECK-NEXT: %[[V3:.*]] = fuse.reshape %[[VT]] : tensor<4x2xf32> -> tensor<1x4x2xf32>
// CHECK-NEXT: %[[V2:.*]] = fuse.transpose %[[V3]] permutation = [0, 2, 1] : tensor<1x4x2xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: %[[MUL:.*]] = fuse.mul %[[ADD]], %[[V2]]
// CHECK-NEXT: %[[SUM:.*]] = fuse.reduce_sum %[[MUL]] axes = [0] : tensor<8x2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[BACK:.*]] = fuse.transpose %[[SUM]] permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK-NEXT: return %[[BACK]]

// A matmul reads the negation: moving the transpose past it would only
// move it (as many bytes), so nothing changes.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: fuse.transpose
// CHECK-NEXT: fuse.neg
// CHECK-NEXT: fuse.matmul

// Two branches, each a transposed result scaled per channel, added, then
// padded (a concat with a splat broadcast) and cut (a slice): the second
// branch's scale joins with the transpose it reads, so both transposes and
// the one after the slice go together; the padding is broadcast again in
// the stored layout.
// CHECK-LABEL: func.func @two_branches
// CHECK-SAME: (%[[A:[^:]*]]: tensor<1x4x4x8xf32>, %[[B:[^:]*]]: tensor<1x4x4x8xf32>, %[[S2:[^:]*]]: tensor<8x1x1xf32>)
// CHECK-NEXT: %[[ZERO:.*]] = fuse.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SA:.*]] = fuse.reshape %[[S2]] : tensor<8x1x1xf32> -> tensor<1x1x1x8xf32>
// CHECK-NEXT: %[[MA:.*]] = fuse.mul %[[A]], %[[SA]]
// CHECK-NEXT: %[[SB:.*]] = fuse.reshape %[[S2]] : tensor<8x1x1xf32> -> tensor<1x1x1x8xf32>
// CHECK-NEXT: %[[MB:.*]] = fuse.mul %[[B]], %[[SB]]
// CHECK-NEXT: %[[SUM:.*]] = fuse.add %[[MA]], %[[MB]] : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>)
// CHECK-NEXT: %[[PAD:.*]] = fuse.broadcast_to %[[ZERO]] : tensor<f32> -> tensor<1x1x4x8xf32>
// CHECK-NEXT: %[[CAT:.*]] = fuse.concat %[[SUM]], %[[PAD]] axis = 1
// CHECK-NEXT: %[[CUT:.*]] = fuse.slice %[[CAT]] offsets = [0, 1, 0, 0] sizes = [1, 4, 4, 8]
// CHECK-NEXT: return %[[CUT]] : tensor<1x4x4x8xf32>

// A softmax over a transposed tensor's last axis, transposed back: after
// fuse-decompose it runs over the input's first axis, with no transpose;
// one row kernel (strided rows) where it took three (two transposes).
// SOFTMAX-LABEL: func.func @softmax_transposed
// SOFTMAX-SAME: (%[[SX:[^:]*]]: tensor<64x48xf32>)
// SOFTMAX-NEXT: %[[MAX:.*]] = fuse.reduce_max %[[SX]] axes = [0] keepdims : tensor<64x48xf32> -> tensor<1x48xf32>
// SOFTMAX-NEXT: %[[D:.*]] = fuse.sub %[[SX]], %[[MAX]]
// SOFTMAX-NEXT: %[[E:.*]] = fuse.exp %[[D]]
// SOFTMAX-NEXT: %[[SUM2:.*]] = fuse.reduce_sum %[[E]] axes = [0] keepdims
// SOFTMAX-NEXT: %[[P:.*]] = fuse.div %[[E]], %[[SUM2]]
// SOFTMAX-NEXT: return %[[P]]
// SOFTMAX-SUMMARY: kernels: 7 unfused -> 1 fused
// SOFTMAX-SUMMARY-NEXT: device-memory bytes: 148224 unfused -> 24576 fused

// A permutation that is its own inverse, where the region would read a
// transpose in place that it could also absorb: it stays.
// CHECK-LABEL: func.func @involution
// CHECK-NEXT: fuse.transpose %arg1
// CHECK-NEXT: fuse.transpose %arg0
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.mul
// CHECK-NEXT: fuse.transpose

// A region that stays (read by a matmul) before one that moves: the
// relu runs untransposed, the negation keeps its transpose.
// CHECK-LABEL: func.func @kept_once
// CHECK-NEXT: fuse.transpose %arg0
// CHECK-NEXT: fuse.neg
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: %[[R:.*]] = fuse.relu %arg2
// CHECK-NEXT: return %{{.*}}, %[[R]]

// EXPLAIN: sink-transposes.mlir:8:8: remark: fuse-sink-transposes: 2 transpose(s) moved through 3 op(s): 2304 bytes transposed -> 0
// EXPLAIN-NEXT: sink-transposes.mlir:14:8: remark: fuse-sink-transposes: 1 transpose(s) moved through 3 op(s): 1152 bytes transposed -> 0
// EXPLAIN-NEXT: sink-transposes.mlir:26:8: remark: fuse-sink-transposes: 3 transpose(s) moved through 5 op(s): 288 bytes transposed -> 48
// EXPLAIN-NEXT: sink-transposes.mlir:42:8: remark: fuse-sink-transposes: 1 transpose(s) moved through 3 op(s): 256 bytes transposed -> 64
// EXPLAIN-NEXT: sink-transposes.mlir:54:8: remark: fuse-sink-transposes: kept: moved through the 1 op(s) after it, the transposes would move 512 bytes where they move 512
// EXPLAIN-NEXT: sink-transposes.mlir:66:8: remark: fuse-sink-transposes: 3 transpose(s) moved through 5 op(s): 1536 bytes transposed -> 0
// EXPLAIN-NEXT: sink-transposes.mlir:95:8: remark: fuse-sink-transposes: kept: moved through the 1 op(s) after it, the transposes would move 256 bytes where they move 256
// EXPLAIN-NEXT: sink-transposes.mlir:108:8: remark: fuse-sink-transposes: 2 transpose(s) moved through 1 op(s): 2048 bytes transposed -> 0
// EXPLAIN-NEXT: sink-transposes.mlir:105:8: remark: fuse-sink-transposes: kept: moved through the 1 op(s) after it, the transposes would move 512 bytes where they move 512
// EXPLAIN-NOT: remark

// SAME-COUNT-8: identical before and after fusion
// HOST-COUNT-8: PASS
