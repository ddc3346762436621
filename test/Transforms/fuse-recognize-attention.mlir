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
// EXPLAIN: remark: fuse-recognize-attention: not an attention kernel: the softmax's input is not matmul(q, kᵀ), scaled by a splat constant and plus a mask
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
