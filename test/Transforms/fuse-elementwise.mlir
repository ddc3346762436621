// RUN: opfuse-opt %s -split-input-file -fuse-elementwise | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-set-target=target=%S/Inputs/slow-fp32.json" -fuse-elementwise | FileCheck %s --check-prefix=SLOW
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=target=b200" -fuse-elementwise 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: fuse-set-target: unknown target 'b200' (expected one of a100, h100, h200, or a target file ending in .json)

// A chain with scalar constants and a row-vector bias is one kernel; the
// splat constants are copied into it.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[G:.*]] = fuse.group(%[[X]], %[[B]]) : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<16x64xf32>, %[[C:.*]]: tensor<64xf32>):
// CHECK-NEXT: %[[K:.*]] = fuse.constant dense<1.702000e+00>
// CHECK-NEXT: %[[M:.*]] = fuse.mul %[[A]], %[[K]]
// CHECK-NEXT: %[[S:.*]] = fuse.sigmoid %[[M]]
// CHECK-NEXT: %[[P:.*]] = fuse.mul %[[A]], %[[S]]
// CHECK-NEXT: %[[Q:.*]] = fuse.add %[[P]], %[[C]]
// CHECK-NEXT: fuse.yield %[[Q]] : tensor<16x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @chain(%x: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %k = fuse.constant dense<1.702> : tensor<f32>
  %0 = fuse.mul %x, %k : (tensor<16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
  %1 = fuse.sigmoid %0 : tensor<16x64xf32>
  %2 = fuse.mul %x, %1 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %3 = fuse.add %2, %b : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %3 : tensor<16x64xf32>
}

// -----

// A diamond (one producer, two branches that meet again) is one kernel that
// computes the shared producer once.
// CHECK-LABEL: func.func @diamond
// CHECK: fuse.group
// CHECK-COUNT-1: fuse.exp
// CHECK: fuse.tanh
// CHECK: fuse.sigmoid
// CHECK: fuse.add
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
func.func @diamond(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = fuse.exp %x : tensor<64xf32>
  %b = fuse.tanh %a : tensor<64xf32>
  %c = fuse.sigmoid %a : tensor<64xf32>
  %d = fuse.add %b, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %d : tensor<64xf32>
}

// -----

// A reduction over the trailing dimension joins the kernel of its
// elementwise consumer, together with its prologue: exp feeds both the sum
// and the division, and stays one op of one kernel (softmax's shape).
// CHECK-LABEL: func.func @side_path
// CHECK: fuse.group(%{{.*}}) : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.*]] = fuse.exp
// CHECK-NEXT: %[[S:.*]] = fuse.reduce_sum %[[E]]
// CHECK-NEXT: fuse.div %[[E]], %[[S]]
// CHECK-NOT: fuse.group
func.func @side_path(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %a = fuse.exp %x : tensor<4x64xf32>
  %s = fuse.reduce_sum %a axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
  %d = fuse.div %a, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %d : tensor<4x64xf32>
}

// -----

// Layer normalisation written out as a chain of three reductions over the
// same rows (mean, corrected mean, variance), behind a bias and a residual:
// the reductions, the per-row chain between them (add epsilon, rsqrt) and
// the scale in one kernel that also writes the residual stream h, which
// the function returns.
// CHECK-LABEL: func.func @bias_residual_layernorm
// CHECK: %[[K:.*]]:2 = fuse.group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x256xf32>, tensor<256xf32>, tensor<8x256xf32>, tensor<256xf32>) -> (tensor<8x256xf32>, tensor<8x256xf32>)
// CHECK-COUNT-3: fuse.reduce_mean
// CHECK: fuse.rsqrt
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
// CHECK: return %[[K]]#0, %[[K]]#1
func.func @bias_residual_layernorm(%x: tensor<8x256xf32>, %bias: tensor<256xf32>,
                                   %r: tensor<8x256xf32>, %g: tensor<256xf32>)
    -> (tensor<8x256xf32>, tensor<8x256xf32>) {
  %0 = fuse.add %x, %bias : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  %h = fuse.add %0, %r : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %m = fuse.reduce_mean %h axes = [1] keepdims : tensor<8x256xf32> -> tensor<8x1xf32>
  %d = fuse.sub %h, %m : (tensor<8x256xf32>, tensor<8x1xf32>) -> tensor<8x256xf32>
  %m2 = fuse.reduce_mean %d axes = [1] keepdims : tensor<8x256xf32> -> tensor<8x1xf32>
  %c = fuse.sub %d, %m2 : (tensor<8x256xf32>, tensor<8x1xf32>) -> tensor<8x256xf32>
  %sq = fuse.mul %c, %c : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %v = fuse.reduce_mean %sq axes = [1] keepdims : tensor<8x256xf32> -> tensor<8x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<8x1xf32>
  %ve = fuse.add %v, %eps : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %rs = fuse.rsqrt %ve : tensor<8x1xf32>
  %n = fuse.mul %c, %rs : (tensor<8x256xf32>, tensor<8x1xf32>) -> tensor<8x256xf32>
  %y = fuse.mul %n, %g : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return %h, %y : tensor<8x256xf32>, tensor<8x256xf32>
}

// -----

// A per-row result that is also returned is an extra output of the kernel.
// CHECK-LABEL: func.func @row_output
// CHECK: %[[K:.*]]:2 = fuse.group(%{{.*}}) : (tensor<16x32xf32>) -> (tensor<16x1xf32>, tensor<16x32xf32>)
// CHECK-NOT: fuse.group
func.func @row_output(%x: tensor<16x32xf32>) -> (tensor<16x1xf32>, tensor<16x32xf32>) {
  %m = fuse.reduce_max %x axes = [1] keepdims : tensor<16x32xf32> -> tensor<16x1xf32>
  %d = fuse.sub %x, %m : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32>
  return %m, %d : tensor<16x1xf32>, tensor<16x32xf32>
}

// -----

// A reduction over a leading dimension joins its producer and consumer in
// one kernel (strided rows: the GPU conversion maps its columns onto lanes).
// CHECK-LABEL: func.func @column
// CHECK: fuse.group(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.exp
// CHECK-NEXT: fuse.reduce_sum %{{.*}} axes = [0]
// CHECK-NEXT: fuse.div
// CHECK-NOT: fuse.group
func.func @column(%x: tensor<64x4xf32>) -> tensor<64x4xf32> {
  %a = fuse.exp %x : tensor<64x4xf32>
  %s = fuse.reduce_sum %a axes = [0] keepdims : tensor<64x4xf32> -> tensor<1x4xf32>
  %d = fuse.div %a, %s : (tensor<64x4xf32>, tensor<1x4xf32>) -> tensor<64x4xf32>
  return %d : tensor<64x4xf32>
}

// -----

// Without keepdims a row sum of shape [8] broadcasts along the columns of
// an 8x8 value, not along its rows: no row kernel can evaluate that, so the
// sum and the division are two kernels.
// CHECK-LABEL: func.func @across_rows
// CHECK: %[[S:.*]] = fuse.group(%{{.*}}) : (tensor<8x8xf32>) -> tensor<8xf32>
// CHECK: fuse.reduce_sum
// CHECK: fuse.group(%{{.*}}, %[[S]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.div
func.func @across_rows(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = fuse.reduce_sum %x axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %d = fuse.div %x, %s : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// -----

// Reductions over rows of different lengths stay apart. The subtraction,
// the max's epilogue, stays in the max's kernel (the later sum over rows of
// 32 does not take it as a prologue, which would leave the max alone), and
// the sum reads its result.
// CHECK-LABEL: func.func @two_row_shapes
// CHECK: %[[M:.*]] = fuse.group(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.reduce_max
// CHECK-NEXT: fuse.sub
// CHECK: fuse.group(%[[M]]) : (tensor<8x16xf32>) -> tensor<4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.reshape
// CHECK-NEXT: fuse.reduce_sum {{.*}} axes = [1, 2]
func.func @two_row_shapes(%x: tensor<8x16xf32>) -> tensor<4xf32> {
  %m = fuse.reduce_max %x axes = [1] keepdims : tensor<8x16xf32> -> tensor<8x1xf32>
  %d = fuse.sub %x, %m : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %r = fuse.reshape %d : tensor<8x16xf32> -> tensor<4x2x16xf32>
  %s = fuse.reduce_sum %r axes = [1, 2] : tensor<4x2x16xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A costly shared producer (9 FLOPs per element whose input the consumer
// kernel does not read) is written once as an extra output that the matmul
// reads: a multi-output kernel.
// CHECK-LABEL: func.func @multi_output
// CHECK: %[[G:.*]]:2 = fuse.group(%{{.*}}) : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>)
// CHECK: %[[GELU:.*]] = fuse.gelu
// CHECK: %[[SILU:.*]] = fuse.silu %[[GELU]]
// CHECK: fuse.yield %[[GELU]], %[[SILU]]
// CHECK: fuse.group(%[[G]]#0, %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
func.func @multi_output(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %g = fuse.gelu %x approximate = tanh : tensor<64x64xf32>
  %h = fuse.silu %g : tensor<64x64xf32>
  %m = fuse.matmul %g, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %h, %m : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A cheap shared producer whose other users are kernels too is recomputed
// in each (its input is read there anyway): it never reaches memory.
// CHECK-LABEL: func.func @recompute
// CHECK: fuse.group(%[[X:.*]]) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[E1:.*]] = fuse.exp %[[A]]
// CHECK-NEXT: fuse.mul %[[E1]], %[[A]]
// CHECK: fuse.group(%[[X]]) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[E2:.*]] = fuse.exp %[[B]]
// CHECK-NEXT: fuse.add %[[E2]], %[[B]]
func.func @recompute(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = fuse.exp %x : tensor<64x64xf32>
  %y = fuse.mul %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = fuse.add %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y, %z : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A producer a matmul needs in memory is written once, as an extra output
// of the kernel that also uses it, rather than recomputed by a kernel of its
// own.
// CHECK-LABEL: func.func @needed_in_memory
// CHECK: %[[G:.*]]:2 = fuse.group(%{{.*}}) : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>)
// CHECK: fuse.exp
// CHECK: fuse.mul
// CHECK: fuse.group(%[[G]]#0, %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.group
func.func @needed_in_memory(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = fuse.exp %x : tensor<64x64xf32>
  %m = fuse.matmul %e, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = fuse.mul %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y, %m : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A broadcast producer of a smaller shape joins when all its users are in
// the kernel: it is evaluated at the broadcast index, never written.
// CHECK-LABEL: func.func @broadcast_producer
// CHECK: fuse.group(%{{.*}}, %{{.*}}) : (tensor<64xbf16>, tensor<16x64xbf16>) -> tensor<16x64xbf16>
// CHECK: fuse.neg {{.*}} : tensor<64xbf16>
// CHECK: fuse.broadcast_to {{.*}} : tensor<64xbf16> -> tensor<16x64xbf16>
// CHECK: fuse.add
// CHECK-NOT: fuse.group
func.func @broadcast_producer(%x: tensor<16x64xbf16>, %b: tensor<64xbf16>) -> tensor<16x64xbf16> {
  %t = fuse.neg %b : tensor<64xbf16>
  %bb = fuse.broadcast_to %t : tensor<64xbf16> -> tensor<16x64xbf16>
  %y = fuse.add %x, %bb : (tensor<16x64xbf16>, tensor<16x64xbf16>) -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// Each matmul takes the elementwise ops after it as its epilogue: the
// bias+GELU and the bias+residual. The GELU feeding the second matmul stays
// in the first kernel: as the second's prologue it would only trade writing
// its result for writing the first matmul's.
// CHECK-LABEL: func.func @mlp
// CHECK: %[[H:.*]] = fuse.group(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.gelu
// CHECK-NEXT: fuse.yield
// CHECK: fuse.group(%[[H]], %arg3, %arg4, %arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.yield
func.func @mlp(%x: tensor<8x16xbf16>, %w1: tensor<16x32xbf16>, %b1: tensor<32xbf16>,
               %w2: tensor<32x16xbf16>, %b2: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
  %1 = fuse.add %0, %b1 : (tensor<8x32xbf16>, tensor<32xbf16>) -> tensor<8x32xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<8x32xbf16>
  %3 = fuse.matmul %2, %w2 : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xbf16>
  %4 = fuse.add %3, %b2 : (tensor<8x16xbf16>, tensor<16xbf16>) -> tensor<8x16xbf16>
  %5 = fuse.add %4, %x : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  return %5 : tensor<8x16xbf16>
}

// -----

// A lone elementwise op becomes a group of one.
// CHECK-LABEL: func.func @single
// CHECK: fuse.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.relu
// CHECK-NEXT: fuse.yield
func.func @single(%x: tensor<32xf32>) -> tensor<32xf32> {
  %y = fuse.relu %x : tensor<32xf32>
  return %y : tensor<32xf32>
}

// -----

// Reshapes only relabel row-major data: a chain through them is one kernel,
// and a bias broadcast after the reshape is read in the reshaped layout.
// CHECK-LABEL: func.func @through_reshape
// CHECK: fuse.group(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<2xf32>) -> tensor<16x2xf32>
// CHECK: fuse.exp
// CHECK: fuse.reshape {{.*}} : tensor<4x8xf32> -> tensor<16x2xf32>
// CHECK: fuse.add
// CHECK-NOT: fuse.group
func.func @through_reshape(%x: tensor<4x8xf32>, %b: tensor<2xf32>) -> tensor<16x2xf32> {
  %0 = fuse.exp %x : tensor<4x8xf32>
  %1 = fuse.reshape %0 : tensor<4x8xf32> -> tensor<16x2xf32>
  %2 = fuse.add %1, %b : (tensor<16x2xf32>, tensor<2xf32>) -> tensor<16x2xf32>
  return %2 : tensor<16x2xf32>
}

// -----

// A reshape whose result is also used outside the kernel stays outside,
// where it is free: the kernel reads the reshaped buffer.
// CHECK-LABEL: func.func @shared_reshape
// CHECK: %[[E:.*]] = fuse.group
// CHECK: fuse.exp
// CHECK: %[[R:.*]] = fuse.reshape %[[E]]
// CHECK: fuse.group(%[[R]])
// CHECK: fuse.neg
func.func @shared_reshape(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %0 = fuse.exp %x : tensor<4x8xf32>
  %1 = fuse.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  %2 = fuse.neg %1 : tensor<32xf32>
  return %1, %2 : tensor<32xf32>, tensor<32xf32>
}

// -----

// Dead elementwise ops disappear instead of becoming kernels.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: fuse.group
// CHECK: return %arg0
func.func @dead(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuse.exp %x : tensor<8xf32>
  return %x : tensor<8xf32>
}

// -----

// The cost model decides recomputation. On the H200 a tanh-GELU shared by
// two kernels is recomputed in both: its 9 FLOPs per element hide under
// the kernels' memory time. On a target whose FP32 rate is 10 GFLOP/s
// (Inputs/slow-fp32.json) recomputing would make the kernel compute-bound,
// so the GELU is written once as an extra output and read by the other.
// CHECK-LABEL: func.func @roofline_decides
// CHECK: fuse.group(%[[X:.*]], %{{.*}}) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
// CHECK: fuse.gelu
// CHECK: fuse.add
// CHECK: fuse.group(%[[X]], %{{.*}}) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
// CHECK: fuse.gelu
// CHECK: fuse.mul
// SLOW-LABEL: func.func @roofline_decides
// SLOW: %[[G:.*]]:2 = fuse.group
// SLOW: %[[GELU:.*]] = fuse.gelu
// SLOW: %[[MUL:.*]] = fuse.mul %[[GELU]]
// SLOW: fuse.yield %[[GELU]], %[[MUL]]
// SLOW: fuse.group(%[[G]]#0, %{{.*}})
// SLOW-NOT: fuse.gelu
// SLOW: fuse.add
func.func @roofline_decides(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>, %z: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %g = fuse.gelu %x approximate = tanh : tensor<256x256xf32>
  %a = fuse.add %g, %y : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %b = fuse.mul %g, %z : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %a, %b : tensor<256x256xf32>, tensor<256x256xf32>
}

// -----

// Sibling row reductions: a row's sum and its maximum of squares read the
// same input and do not depend on each other; they become one kernel with
// two per-row outputs, which reads x once.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[K:.*]]:2 = fuse.group(%{{.*}}) : (tensor<16x256xf32>) -> (tensor<16xf32>, tensor<16xf32>)
// CHECK-DAG: fuse.reduce_sum
// CHECK-DAG: fuse.reduce_max
// CHECK-NOT: fuse.group
// CHECK: return %[[K]]#{{[01]}}, %[[K]]#{{[01]}}
func.func @siblings(%x: tensor<16x256xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %s = fuse.reduce_sum %x axes = [1] : tensor<16x256xf32> -> tensor<16xf32>
  %sq = fuse.mul %x, %x : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  %m = fuse.reduce_max %sq axes = [1] : tensor<16x256xf32> -> tensor<16xf32>
  return %s, %m : tensor<16xf32>, tensor<16xf32>
}

// -----

// Siblings over different rows stay apart.
// CHECK-LABEL: func.func @siblings_other_rows
// CHECK-COUNT-2: fuse.group
func.func @siblings_other_rows(%x: tensor<16x256xf32>) -> (tensor<16xf32>, tensor<256xf32>) {
  %s = fuse.reduce_sum %x axes = [1] : tensor<16x256xf32> -> tensor<16xf32>
  %r = fuse.reshape %x : tensor<16x256xf32> -> tensor<256x16xf32>
  %m = fuse.reduce_max %r axes = [1] : tensor<256x16xf32> -> tensor<256xf32>
  return %s, %m : tensor<16xf32>, tensor<256xf32>
}

// -----

// A matmul whose result is also returned writes it as an extra output of
// its epilogue kernel.
// CHECK-LABEL: func.func @matmul_extra_output
// CHECK: %[[K:.*]]:2 = fuse.group
// CHECK: fuse.matmul
// CHECK: fuse.silu
// CHECK: fuse.yield
// CHECK: return %[[K]]#{{[01]}}, %[[K]]#{{[01]}}
func.func @matmul_extra_output(%a: tensor<32x64xbf16>, %b: tensor<64x48xbf16>) -> (tensor<32x48xbf16>, tensor<32x48xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<32x64xbf16>, tensor<64x48xbf16>) -> tensor<32x48xbf16>
  %1 = fuse.silu %0 : tensor<32x48xbf16>
  return %1, %0 : tensor<32x48xbf16>, tensor<32x48xbf16>
}

// -----

// An epilogue value of another shape (the matmul's result broadcast to a
// batch) does not join the matmul: an epilogue computes one value per output
// element. The elementwise kernel keeps the ops, with the smaller bias op.
// CHECK-LABEL: func.func @matmul_other_shapes
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: fuse.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.neg
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.yield
func.func @matmul_other_shapes(%a: tensor<32x64xbf16>, %b: tensor<64x48xbf16>, %bias: tensor<48xbf16>, %y: tensor<2x32x48xbf16>) -> tensor<2x32x48xbf16> {
  %nb = fuse.neg %bias : tensor<48xbf16>
  %0 = fuse.matmul %a, %b : (tensor<32x64xbf16>, tensor<64x48xbf16>) -> tensor<32x48xbf16>
  %1 = fuse.add %0, %y : (tensor<32x48xbf16>, tensor<2x32x48xbf16>) -> tensor<2x32x48xbf16>
  %2 = fuse.add %1, %nb : (tensor<2x32x48xbf16>, tensor<48xbf16>) -> tensor<2x32x48xbf16>
  return %2 : tensor<2x32x48xbf16>
}

// -----

// The merge of attention heads after P.V joins the GEMM kernel as the layout
// its epilogue stores in: the transpose is inside the group, whose result is
// the transposed tensor; the reshape that merges heads is free after it.
// CHECK-LABEL: func.func @matmul_store_merge_heads
// CHECK: %[[G:.*]] = fuse.group
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.relu
// CHECK-NEXT: fuse.transpose
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.group
// CHECK: fuse.reshape %[[G]]
func.func @matmul_store_merge_heads(%p: tensor<2x4x64x64xbf16>, %v: tensor<2x4x64x32xbf16>) -> tensor<2x64x128xbf16> {
  %o = fuse.matmul %p, %v : (tensor<2x4x64x64xbf16>, tensor<2x4x64x32xbf16>) -> tensor<2x4x64x32xbf16>
  %r = fuse.relu %o : tensor<2x4x64x32xbf16>
  %t = fuse.transpose %r permutation = [0, 2, 1, 3] : tensor<2x4x64x32xbf16> -> tensor<2x64x4x32xbf16>
  %m = fuse.reshape %t : tensor<2x64x4x32xbf16> -> tensor<2x64x128xbf16>
  return %m : tensor<2x64x128xbf16>
}

// -----

// A transpose that moves the matmul's columns apart (the last two
// dimensions swapped) cannot be the GEMM's store layout: it stays a kernel
// of its own, and the matmul's kernel writes its result.
// CHECK-LABEL: func.func @matmul_store_columns_moved
// CHECK: fuse.matmul
// CHECK: fuse.transpose
// CHECK-NOT: fuse.matmul
func.func @matmul_store_columns_moved(%a: tensor<64x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<32x64xbf16> {
  %o = fuse.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %t = fuse.transpose %o permutation = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  return %t : tensor<32x64xbf16>
}

// -----

// A QKV projection read only through slices stores Q, K and V as three
// outputs of its GEMM kernel (the slices join it), so each dies with its
// last reader instead of the whole result living until the last of them.
// The consumers read the slices' results: Q and K through the views of
// the QK^T kernel, V through those of the P.V kernel.
// CHECK-LABEL: func.func @qkv_split
// CHECK: %[[QKV:.*]]:3 = fuse.group
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.slice
// CHECK-NEXT: fuse.slice
// CHECK-NEXT: fuse.slice
// CHECK-NEXT: fuse.yield
// CHECK: fuse.group(%[[QKV]]#0, %[[QKV]]#1)
// CHECK-NOT: fuse.slice
// CHECK: fuse.matmul
// CHECK: fuse.group({{.*}}%[[QKV]]#2)
// CHECK-NOT: fuse.slice
// CHECK: return
func.func @qkv_split(%x: tensor<64x32xbf16>, %w: tensor<32x96xbf16>, %b: tensor<96xbf16>, %p: tensor<64x64xbf16>) -> (tensor<64x64xbf16>, tensor<64x32xbf16>) {
  %m = fuse.matmul %x, %w : (tensor<64x32xbf16>, tensor<32x96xbf16>) -> tensor<64x96xbf16>
  %qkv = fuse.add %m, %b : (tensor<64x96xbf16>, tensor<96xbf16>) -> tensor<64x96xbf16>
  %q = fuse.slice %qkv offsets = [0, 0] sizes = [64, 32] strides = [1, 1] : tensor<64x96xbf16> -> tensor<64x32xbf16>
  %k = fuse.slice %qkv offsets = [0, 32] sizes = [64, 32] strides = [1, 1] : tensor<64x96xbf16> -> tensor<64x32xbf16>
  %v = fuse.slice %qkv offsets = [0, 64] sizes = [64, 32] strides = [1, 1] : tensor<64x96xbf16> -> tensor<64x32xbf16>
  %s = fuse.matmul %q, %k transpose_b : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x64xbf16>
  %o = fuse.matmul %p, %v : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %s, %o : tensor<64x64xbf16>, tensor<64x32xbf16>
}

// -----

// A result also read whole is stored whole: the slice stays a view of it,
// read by the next GEMM's kernel.
// CHECK-LABEL: func.func @qkv_also_read_whole
// CHECK: %[[M:.*]] = fuse.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.matmul
// CHECK: fuse.group(%[[M]],
// CHECK: fuse.slice
// CHECK-NEXT: fuse.matmul
// CHECK: return
func.func @qkv_also_read_whole(%x: tensor<64x32xbf16>, %w: tensor<32x96xbf16>, %p: tensor<64x32xbf16>) -> (tensor<64x32xbf16>, tensor<64x96xbf16>) {
  %m = fuse.matmul %x, %w : (tensor<64x32xbf16>, tensor<32x96xbf16>) -> tensor<64x96xbf16>
  %q = fuse.slice %m offsets = [0, 0] sizes = [64, 32] strides = [1, 1] : tensor<64x96xbf16> -> tensor<64x32xbf16>
  %s = fuse.matmul %q, %p transpose_b : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x64xbf16>
  %o = fuse.matmul %s, %p : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %o, %m : tensor<64x32xbf16>, tensor<64x96xbf16>
}

// -----

// In a kernel that moves data a reshape is an index map of any size: the
// new key of a decode step, split out of the QKV projection by a slice and
// a reshape, joins the concat that appends it to the cache (it used to be
// a copy kernel of its own, the reshape being smaller than the concat).
// CHECK-LABEL: func.func @reshape_into_concat
// CHECK: fuse.group
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.slice
// CHECK-NEXT: fuse.reshape
// CHECK-NEXT: fuse.transpose
// CHECK-NEXT: fuse.concat
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.group
func.func @reshape_into_concat(%qkv: tensor<4x1x384xbf16>, %cache: tensor<4x2x8x64xbf16>) -> tensor<4x2x9x64xbf16> {
  %s = fuse.slice %qkv offsets = [0, 0, 128] sizes = [4, 1, 128] strides = [1, 1, 1] : tensor<4x1x384xbf16> -> tensor<4x1x128xbf16>
  %r = fuse.reshape %s : tensor<4x1x128xbf16> -> tensor<4x1x2x64xbf16>
  %t = fuse.transpose %r permutation = [0, 2, 1, 3] : tensor<4x1x2x64xbf16> -> tensor<4x2x1x64xbf16>
  %c = fuse.concat %cache, %t axis = 2 : (tensor<4x2x8x64xbf16>, tensor<4x2x1x64xbf16>) -> tensor<4x2x9x64xbf16>
  return %c : tensor<4x2x9x64xbf16>
}

// -----

// Two kernels over the same elements that share only a broadcast input
// (the cosines of a decode step's query and key rotations), each taking
// less than a launch, become one kernel of two outputs. Large ones, and
// small ones of different shapes, keep a kernel each.
// CHECK-LABEL: func.func @launch_bound_siblings
// CHECK: %[[G:.*]]:2 = fuse.group
// CHECK-NOT: fuse.group
// CHECK: return %[[G]]#{{[01]}}, %[[G]]#{{[01]}}
func.func @launch_bound_siblings(%q: tensor<4x128xbf16>, %k: tensor<4x128xbf16>, %cos: tensor<128xbf16>) -> (tensor<4x128xbf16>, tensor<4x128xbf16>) {
  %a = fuse.mul %q, %cos : (tensor<4x128xbf16>, tensor<128xbf16>) -> tensor<4x128xbf16>
  %b = fuse.mul %k, %cos : (tensor<4x128xbf16>, tensor<128xbf16>) -> tensor<4x128xbf16>
  return %a, %b : tensor<4x128xbf16>, tensor<4x128xbf16>
}

// CHECK-LABEL: func.func @large_siblings
// CHECK: fuse.group
// CHECK: fuse.group
func.func @large_siblings(%q: tensor<4096x4096xbf16>, %k: tensor<4096x4096xbf16>, %cos: tensor<4096xbf16>) -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
  %a = fuse.mul %q, %cos : (tensor<4096x4096xbf16>, tensor<4096xbf16>) -> tensor<4096x4096xbf16>
  %b = fuse.mul %k, %cos : (tensor<4096x4096xbf16>, tensor<4096xbf16>) -> tensor<4096x4096xbf16>
  return %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
}

// CHECK-LABEL: func.func @other_shape_siblings
// CHECK: fuse.group
// CHECK: fuse.group
func.func @other_shape_siblings(%q: tensor<4x128xbf16>, %k: tensor<2x128xbf16>, %cos: tensor<128xbf16>) -> (tensor<4x128xbf16>, tensor<2x128xbf16>) {
  %a = fuse.mul %q, %cos : (tensor<4x128xbf16>, tensor<128xbf16>) -> tensor<4x128xbf16>
  %b = fuse.mul %k, %cos : (tensor<2x128xbf16>, tensor<128xbf16>) -> tensor<2x128xbf16>
  return %a, %b : tensor<4x128xbf16>, tensor<2x128xbf16>
}

// -----

// A reshape met before the data movement it is read beside (producers are
// considered latest first) joins once the slice has: the filter tap's
// weights of a windowed convolution.
// CHECK-LABEL: func.func @reshape_before_slice
// CHECK: fuse.group
// CHECK: fuse.slice
// CHECK: fuse.reshape
// CHECK: fuse.mul
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
func.func @reshape_before_slice(%x: tensor<4x8xf32>, %w: tensor<8x1xf32>) -> tensor<2x8xf32> {
  %s = fuse.slice %x offsets = [0, 0] sizes = [2, 8] strides = [2, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  %r = fuse.reshape %w : tensor<8x1xf32> -> tensor<8xf32>
  %m = fuse.mul %s, %r : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %m : tensor<2x8xf32>
}

// -----

// A row kernel reads its inputs whole: the windows of a depthwise
// convolution (as fuse-decompose writes it) would each cross memory if the
// layer norm's kernel took the sum they feed, so the sum stays a loop
// kernel that reads them in place, and its one result crosses memory.
// Nor is the padding's concat taken for the norm's epilogue: it is part of
// the padded input, not a per-row value. (A 3-tap row, one channel.)
// CHECK-LABEL: func.func @windows_before_norm
// CHECK: %[[CONV:.*]] = fuse.group
// CHECK: fuse.concat
// CHECK-COUNT-3: fuse.slice %{{.*}} offsets = [0, 0, {{[0-2]}}, 0]
// CHECK: fuse.yield
// CHECK: fuse.group(%[[CONV]]
// CHECK: fuse.reduce_mean
// CHECK-NOT: fuse.slice
// CHECK: fuse.yield
func.func @windows_before_norm(%x: tensor<2x1x8x4xf32>, %w: tensor<4xf32>) -> tensor<2x1x8x4xf32> {
  %z = fuse.constant dense<0.0> : tensor<2x1x1x4xf32>
  %p = fuse.concat %z, %x, %z axis = 2 : (tensor<2x1x1x4xf32>, tensor<2x1x8x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x1x10x4xf32>
  %s0 = fuse.slice %p offsets = [0, 0, 0, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %s1 = fuse.slice %p offsets = [0, 0, 1, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %s2 = fuse.slice %p offsets = [0, 0, 2, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %t0 = fuse.mul %s0, %w : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %t1 = fuse.mul %s1, %w : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %t2 = fuse.mul %s2, %w : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %a0 = fuse.add %t0, %t1 : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  %c = fuse.add %a0, %t2 : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  %m = fuse.reduce_mean %c axes = [3] keepdims : tensor<2x1x8x4xf32> -> tensor<2x1x8x1xf32>
  %d = fuse.sub %c, %m : (tensor<2x1x8x4xf32>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x4xf32>
  return %d : tensor<2x1x8x4xf32>
}

// -----

// A concat that pads a norm's output is not that norm's epilogue (its
// smaller operand is a part of it, not a per-row value): the windows'
// kernel reads the norm's output through it in place.
// CHECK-LABEL: func.func @padded_norm_output
// CHECK: %[[NORM:.*]] = fuse.group
// CHECK: fuse.reduce_mean
// CHECK: fuse.yield
// CHECK: fuse.group(%[[NORM]]
// CHECK: fuse.concat
// CHECK: fuse.slice
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
func.func @padded_norm_output(%a: tensor<2x1x8x4xf32>, %w: tensor<4xf32>) -> tensor<2x1x8x4xf32> {
  %m = fuse.reduce_mean %a axes = [3] keepdims : tensor<2x1x8x4xf32> -> tensor<2x1x8x1xf32>
  %x = fuse.sub %a, %m : (tensor<2x1x8x4xf32>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x4xf32>
  %z = fuse.constant dense<0.0> : tensor<2x1x1x4xf32>
  %p = fuse.concat %z, %x, %z axis = 2 : (tensor<2x1x1x4xf32>, tensor<2x1x8x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x1x10x4xf32>
  %s0 = fuse.slice %p offsets = [0, 0, 0, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %s2 = fuse.slice %p offsets = [0, 0, 2, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %t0 = fuse.mul %s0, %w : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %t2 = fuse.mul %s2, %w : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %c = fuse.add %t0, %t2 : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  %r = fuse.add %c, %x : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  return %r : tensor<2x1x8x4xf32>
}

// -----

// A reshape deferred until the kernel moved data is asked again even when
// the last candidate popped was one already taken: every filter tap's
// weights of a windowed convolution join its kernel.
// CHECK-LABEL: func.func @last_tap_weights
// CHECK: fuse.group
// CHECK-COUNT-2: fuse.reshape
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
func.func @last_tap_weights(%a: tensor<2x1x8x4xf32>, %w: tensor<4x2xf32>) -> tensor<2x1x8x4xf32> {
  %m = fuse.reduce_mean %a axes = [3] keepdims : tensor<2x1x8x4xf32> -> tensor<2x1x8x1xf32>
  %x = fuse.sub %a, %m : (tensor<2x1x8x4xf32>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x4xf32>
  %z = fuse.constant dense<0.0> : tensor<2x1x1x4xf32>
  %p = fuse.concat %z, %x, %z axis = 2 : (tensor<2x1x1x4xf32>, tensor<2x1x8x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x1x10x4xf32>
  %s0 = fuse.slice %p offsets = [0, 0, 0, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %w0s = fuse.slice %w offsets = [0, 0] sizes = [4, 1] strides = [1, 1] : tensor<4x2xf32> -> tensor<4x1xf32>
  %w0 = fuse.reshape %w0s : tensor<4x1xf32> -> tensor<4xf32>
  %t0 = fuse.mul %s0, %w0 : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %s2 = fuse.slice %p offsets = [0, 0, 2, 0] sizes = [2, 1, 8, 4] strides = [1, 1, 1, 1] : tensor<2x1x10x4xf32> -> tensor<2x1x8x4xf32>
  %w1s = fuse.slice %w offsets = [0, 1] sizes = [4, 1] strides = [1, 1] : tensor<4x2xf32> -> tensor<4x1xf32>
  %w1 = fuse.reshape %w1s : tensor<4x1xf32> -> tensor<4xf32>
  %t2 = fuse.mul %s2, %w1 : (tensor<2x1x8x4xf32>, tensor<4xf32>) -> tensor<2x1x8x4xf32>
  %c = fuse.add %t0, %t2 : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  %r = fuse.add %c, %x : (tensor<2x1x8x4xf32>, tensor<2x1x8x4xf32>) -> tensor<2x1x8x4xf32>
  return %r : tensor<2x1x8x4xf32>
}
