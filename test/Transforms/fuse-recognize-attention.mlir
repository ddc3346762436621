// fuse-recognize-attention: matmul(q, kᵀ), a scale, an additive mask, a
// softmax over the keys and matmul(p, v), read only along the chain,
// become one fuse.attention when the fused kernel runs it; otherwise the
// chain stays, and with fuse-explain a remark at the softmax says why.
// RUN: opfuse-opt %s -split-input-file -fuse-recognize-attention | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-recognize-attention=fuse-explain=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// As the examples write it: k transposed by the model (the transpose goes,
// the attention reads k), a bf16 scale constant, a mask broadcast over
// batch and heads.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x64x64xbf16>, %[[K:.*]]: tensor<2x4x64x64xbf16>, %[[V:.*]]: tensor<2x4x64x64xbf16>, %[[M:.*]]: tensor<64x64xbf16>)
// CHECK-NEXT: %[[O:.*]] = fuse.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 1.250000e-01 : (tensor<2x4x64x64xbf16>, tensor<2x4x64x64xbf16>, tensor<2x4x64x64xbf16>, tensor<64x64xbf16>) -> tensor<2x4x64x64xbf16>
// CHECK-NEXT: return %[[O]]
// EXPLAIN: remark: fuse-recognize-attention: matmul, scale, mask, softmax and matmul recognised as one attention
func.func @heads(%q: tensor<2x4x64x64xbf16>, %k: tensor<2x4x64x64xbf16>, %v: tensor<2x4x64x64xbf16>, %m: tensor<64x64xbf16>) -> tensor<2x4x64x64xbf16> {
  %kt = fuse.transpose %k permutation = [0, 1, 3, 2] : tensor<2x4x64x64xbf16> -> tensor<2x4x64x64xbf16>
  %s = fuse.matmul %q, %kt : (tensor<2x4x64x64xbf16>, tensor<2x4x64x64xbf16>) -> tensor<2x4x64x64xbf16>
  %c = fuse.constant dense<1.250000e-01> : tensor<bf16>
  %t = fuse.mul %s, %c : (tensor<2x4x64x64xbf16>, tensor<bf16>) -> tensor<2x4x64x64xbf16>
  %u = fuse.add %t, %m : (tensor<2x4x64x64xbf16>, tensor<64x64xbf16>) -> tensor<2x4x64x64xbf16>
  %p = fuse.softmax %u axis = 3 : tensor<2x4x64x64xbf16>
  %o = fuse.matmul %p, %v : (tensor<2x4x64x64xbf16>, tensor<2x4x64x64xbf16>) -> tensor<2x4x64x64xbf16>
  return %o : tensor<2x4x64x64xbf16>
}

// -----

// Rank 3 ([B * H, S, D]) with transpose_b and a division: reshaped to
// [1, B * H, S, D] and back; scale 1 / 8.
// CHECK-LABEL: func.func @flat_heads
// CHECK: %[[Q4:.*]] = fuse.reshape %{{.*}} : tensor<8x32x16xf16> -> tensor<1x8x32x16xf16>
// CHECK: %[[K4:.*]] = fuse.reshape %{{.*}} : tensor<8x48x16xf16> -> tensor<1x8x48x16xf16>
// CHECK: %[[V4:.*]] = fuse.reshape %{{.*}} : tensor<8x48x32xf16> -> tensor<1x8x48x32xf16>
// CHECK: %[[O:.*]] = fuse.attention %[[Q4]], %[[K4]], %[[V4]] scale = 1.250000e-01
// CHECK: %[[R:.*]] = fuse.reshape %[[O]] : tensor<1x8x32x32xf16> -> tensor<8x32x32xf16>
// CHECK-NOT: fuse.softmax
// CHECK: return %[[R]]
func.func @flat_heads(%q: tensor<8x32x16xf16>, %k: tensor<8x48x16xf16>, %v: tensor<8x48x32xf16>) -> tensor<8x32x32xf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<8x32x16xf16>, tensor<8x48x16xf16>) -> tensor<8x32x48xf16>
  %c = fuse.constant dense<8.0> : tensor<f16>
  %t = fuse.div %s, %c : (tensor<8x32x48xf16>, tensor<f16>) -> tensor<8x32x48xf16>
  %p = fuse.softmax %t axis = 2 : tensor<8x32x48xf16>
  %o = fuse.matmul %p, %v : (tensor<8x32x48xf16>, tensor<8x48x32xf16>) -> tensor<8x32x32xf16>
  return %o : tensor<8x32x32xf16>
}

// -----

// The probabilities are a result too: the kernel would have to write them.
// CHECK-LABEL: func.func @weights_returned
// CHECK: fuse.softmax
// CHECK-NOT: fuse.attention
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: 'fuse.softmax' at {{.*}} is also read outside the attention; the fused kernel never writes the scores or the probabilities
func.func @weights_returned(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %p = fuse.softmax %s axis = 3 : tensor<1x2x16x16xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  return %o, %p : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>
}

// -----

// f32 and a head dimension of 8: the kernel takes neither.
// CHECK-LABEL: func.func @f32_scores
// CHECK: fuse.softmax
// CHECK-NOT: fuse.attention
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the fused attention kernel takes bf16 or f16 operands, not f32
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the fused attention kernel takes head dimensions that are multiples of 16 up to 128; D is 8
func.func @f32_scores(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %p = fuse.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %o = fuse.matmul %p, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  return %o : tensor<1x2x16x16xf32>
}
func.func @narrow(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>) -> tensor<1x2x16x16xbf16>
  %p = fuse.softmax %s axis = 3 : tensor<1x2x16x16xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16>
  return %o : tensor<1x2x16x8xbf16>
}

// -----

// A softmax over the queries, and one whose input is not scores times a
// constant (a scale computed at run time).
// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: fuse.attention
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the softmax is not over the last axis (the keys)
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the softmax's input is not matmul(q, kᵀ), scaled by a splat constant, plus a mask and hidden by a select of -inf (or of a fill of -1e4 or less)
func.func @other_axis(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %p = fuse.softmax %s axis = 2 : tensor<1x2x16x16xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
func.func @runtime_scale(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %c: tensor<bf16>) -> tensor<1x2x16x16xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %t = fuse.mul %s, %c : (tensor<1x2x16x16xbf16>, tensor<bf16>) -> tensor<1x2x16x16xbf16>
  %p = fuse.softmax %t axis = 3 : tensor<1x2x16x16xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// A select hiding scores (masked_fill, ONNX Where) with -inf where its
// condition is false, after the scale and before an additive mask:
// becomes an additive mask over the condition's shape, 0 or -inf, added
// to the model's mask.
// CHECK-LABEL: func.func @select_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x40x16xbf16>, %[[K:.*]]: tensor<1x2x40x16xbf16>, %[[V:.*]]: tensor<1x2x40x16xbf16>, %[[KEEP:.*]]: tensor<40x40xi1>, %[[M:.*]]: tensor<1x1x1x40xbf16>)
// CHECK-DAG: %[[NINF:.*]] = fuse.constant dense<0xFF80> : tensor<bf16>
// CHECK-DAG: %[[ZERO:.*]] = fuse.constant dense<0.000000e+00> : tensor<bf16>
// CHECK: %[[HIDE:.*]] = fuse.select %[[KEEP]], %[[ZERO]], %[[NINF]] : (tensor<40x40xi1>, tensor<bf16>, tensor<bf16>) -> tensor<40x40xbf16>
// CHECK: %[[SUM:.*]] = fuse.add %[[HIDE]], %[[M]]
// CHECK: fuse.attention %[[Q]], %[[K]], %[[V]] mask %[[SUM]] scale = 2.500000e-01 :
// CHECK-NOT: fuse.softmax
func.func @select_mask(%q: tensor<1x2x40x16xbf16>, %k: tensor<1x2x40x16xbf16>, %v: tensor<1x2x40x16xbf16>, %keep: tensor<40x40xi1>, %m: tensor<1x1x1x40xbf16>) -> tensor<1x2x40x16xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x40x16xbf16>, tensor<1x2x40x16xbf16>) -> tensor<1x2x40x40xbf16>
  %c = fuse.constant dense<2.500000e-01> : tensor<bf16>
  %t = fuse.mul %s, %c : (tensor<1x2x40x40xbf16>, tensor<bf16>) -> tensor<1x2x40x40xbf16>
  %ninf = fuse.constant dense<0xFF80> : tensor<bf16>
  %u = fuse.select %keep, %t, %ninf : (tensor<40x40xi1>, tensor<1x2x40x40xbf16>, tensor<bf16>) -> tensor<1x2x40x40xbf16>
  %w = fuse.add %u, %m : (tensor<1x2x40x40xbf16>, tensor<1x1x1x40xbf16>) -> tensor<1x2x40x40xbf16>
  %p = fuse.softmax %w axis = 3 : tensor<1x2x40x40xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x40x40xbf16>, tensor<1x2x40x16xbf16>) -> tensor<1x2x40x16xbf16>
  return %o : tensor<1x2x40x16xbf16>
}

// -----

// masked_fill(triu(ones, 1), finfo.min) with the triangle a constant (as
// exported models carry it): the select hides where its condition is
// true, exactly the keys after each query, so the attention is causal and
// takes no mask; the constant goes.
// CHECK-LABEL: func.func @constant_causal
// CHECK-NEXT: %[[O:.*]] = fuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale = 2.500000e-01 causal :
// CHECK-NEXT: return %[[O]]
func.func @constant_causal(%q: tensor<1x1x4x16xf16>, %k: tensor<1x1x4x16xf16>, %v: tensor<1x1x4x16xf16>) -> tensor<1x1x4x16xf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x1x4x16xf16>, tensor<1x1x4x16xf16>) -> tensor<1x1x4x4xf16>
  %c = fuse.constant dense<2.500000e-01> : tensor<f16>
  %t = fuse.mul %s, %c : (tensor<1x1x4x4xf16>, tensor<f16>) -> tensor<1x1x4x4xf16>
  %upper = fuse.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %fill = fuse.constant dense<-6.550400e+04> : tensor<f16>
  %u = fuse.select %upper, %fill, %t : (tensor<4x4xi1>, tensor<f16>, tensor<1x1x4x4xf16>) -> tensor<1x1x4x4xf16>
  %p = fuse.softmax %u axis = 3 : tensor<1x1x4x4xf16>
  %o = fuse.matmul %p, %v : (tensor<1x1x4x4xf16>, tensor<1x1x4x16xf16>) -> tensor<1x1x4x16xf16>
  return %o : tensor<1x1x4x16xf16>
}

// -----

// A select filling -30000 (-29952 in bf16) where an input condition is false: as an
// additive mask it would change rows whose keys are all hidden, so the
// chain stays, and the remark says why.
// CHECK-LABEL: func.func @finite_fill
// CHECK: fuse.softmax
// CHECK-NOT: fuse.attention
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the select hides scores with -29952, which as an additive mask would change rows whose keys are all hidden; the kernel takes -1e30 or less (or a constant causal triangle)
func.func @finite_fill(%q: tensor<1x1x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x1x8x16xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>) -> tensor<1x1x8x8xbf16>
  %fill = fuse.constant dense<-3.000000e+04> : tensor<bf16>
  %u = fuse.select %keep, %s, %fill : (tensor<1x1x1x8xi1>, tensor<1x1x8x8xbf16>, tensor<bf16>) -> tensor<1x1x8x8xbf16>
  %p = fuse.softmax %u axis = 3 : tensor<1x1x8x8xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x1x8x8xbf16>, tensor<1x1x8x16xbf16>) -> tensor<1x1x8x16xbf16>
  return %o : tensor<1x1x8x16xbf16>
}

// -----

// Gemma 2's soft cap, tanh(s / c) * c between the scale and the mask.
// CHECK-LABEL: func.func @soft_cap
// CHECK-NEXT: %[[O:.*]] = fuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale = 6.250000e-02 softcap = 5.000000e+01 :
// CHECK-NEXT: return %[[O]]
func.func @soft_cap(%q: tensor<1x2x24x32xbf16>, %k: tensor<1x2x24x32xbf16>, %v: tensor<1x2x24x32xbf16>, %m: tensor<24x24xbf16>) -> tensor<1x2x24x32xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x24x32xbf16>, tensor<1x2x24x32xbf16>) -> tensor<1x2x24x24xbf16>
  %c = fuse.constant dense<6.250000e-02> : tensor<bf16>
  %t = fuse.mul %s, %c : (tensor<1x2x24x24xbf16>, tensor<bf16>) -> tensor<1x2x24x24xbf16>
  %cap = fuse.constant dense<5.000000e+01> : tensor<bf16>
  %d = fuse.div %t, %cap : (tensor<1x2x24x24xbf16>, tensor<bf16>) -> tensor<1x2x24x24xbf16>
  %h = fuse.tanh %d : tensor<1x2x24x24xbf16>
  %g = fuse.mul %h, %cap : (tensor<1x2x24x24xbf16>, tensor<bf16>) -> tensor<1x2x24x24xbf16>
  %u = fuse.add %g, %m : (tensor<1x2x24x24xbf16>, tensor<24x24xbf16>) -> tensor<1x2x24x24xbf16>
  %p = fuse.softmax %u axis = 3 : tensor<1x2x24x24xbf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x24x24xbf16>, tensor<1x2x24x32xbf16>) -> tensor<1x2x24x32xbf16>
  return %o : tensor<1x2x24x32xbf16>
}

// -----

// A select whose condition is larger than the scores (two masks over one
// head): the select broadcasts the scores up, and p v broadcasts v's batch.
// One attention kernel per head cannot hide keys by a condition of another
// shape.
// CHECK-LABEL: func.func @condition_wider_than_scores
// CHECK-NOT: fuse.attention
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the select's condition does not broadcast to the scores
func.func @condition_wider_than_scores(%q: tensor<1x8x16xbf16>, %k: tensor<1x8x16xbf16>, %v: tensor<1x8x16xbf16>, %keep: tensor<2x8x8xi1>) -> tensor<2x8x16xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x8x16xbf16>, tensor<1x8x16xbf16>) -> tensor<1x8x8xbf16>
  %ninf = fuse.constant dense<0xFF80> : tensor<bf16>
  %u = fuse.select %keep, %s, %ninf : (tensor<2x8x8xi1>, tensor<1x8x8xbf16>, tensor<bf16>) -> tensor<2x8x8xbf16>
  %p = fuse.softmax %u axis = 2 : tensor<2x8x8xbf16>
  %o = fuse.matmul %p, %v : (tensor<2x8x8xbf16>, tensor<1x8x16xbf16>) -> tensor<2x8x16xbf16>
  return %o : tensor<2x8x16xbf16>
}
