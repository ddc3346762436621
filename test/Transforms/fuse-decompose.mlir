// RUN: opfuse-opt %s -split-input-file -fuse-decompose | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-decompose=keep-attention=1 fuse-explain=1" 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: opfuse-opt %s -split-input-file "-fuse-decompose=fuse-explain=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WINDOWS
// WINDOWS-NOT: remark: grouped
// WINDOWS: :[[@LINE+193]]:8: remark: grouped conv2d (groups = 4) computed as windows: at most 64 products an output, which one GEMM per group would compute in tiles mostly of padding; its taps' strided windows of the padded input make one loop kernel
// WINDOWS: :[[@LINE+205]]:8: remark: grouped conv2d (groups = 2) computed as windows
// WINDOWS: :[[@LINE+243]]:8: remark: grouped conv2d (groups = 2) computed as windows
// WINDOWS-NOT: remark: grouped

// softmax: the row maximum is subtracted before exp; reductions keep their
// axis so that they broadcast back over the row.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[M:.*]] = fuse.reduce_max %[[X]] axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.*]] = fuse.sub %[[X]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = fuse.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = fuse.reduce_sum %[[E]] axes = [1] keepdims
// CHECK-NEXT: %[[P:.*]] = fuse.div %[[E]], %[[S]]
// CHECK-NEXT: return %[[P]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax over a leading axis reduces that axis.
// CHECK-LABEL: func.func @softmax_axis_0
// CHECK: fuse.reduce_max %{{.*}} axes = [0] keepdims : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: fuse.reduce_sum %{{.*}} axes = [0] keepdims
func.func @softmax_axis_0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.softmax %x axis = 0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layer_norm in bf16: widened to f32 (input, scale and bias), a corrected
// two-pass variance over the trailing axes (mean(d) and mean(d * d) of
// d = x - mean(x), independent of each other), rounded back once at the end.
// CHECK-LABEL: func.func @layer_norm_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xbf16>, %[[G:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<4x8xbf16>)
// CHECK-NEXT: %[[XF:.*]] = fuse.cast %[[X]] : tensor<2x4x8xbf16> to tensor<2x4x8xf32>
// CHECK-NEXT: %[[M:.*]] = fuse.reduce_mean %[[XF]] axes = [1, 2] keepdims : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[D:.*]] = fuse.sub %[[XF]], %[[M]]
// CHECK-NEXT: %[[M2:.*]] = fuse.reduce_mean %[[D]] axes = [1, 2] keepdims
// CHECK-NEXT: %[[SQ:.*]] = fuse.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[Q:.*]] = fuse.reduce_mean %[[SQ]] axes = [1, 2] keepdims
// CHECK-NEXT: %[[M2SQ:.*]] = fuse.mul %[[M2]], %[[M2]]
// CHECK-NEXT: %[[V:.*]] = fuse.sub %[[Q]], %[[M2SQ]]
// CHECK-NEXT: %[[C:.*]] = fuse.sub %[[D]], %[[M2]]
// CHECK-NEXT: %[[EPS:.*]] = fuse.constant dense<9.99999974E-6> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[VE:.*]] = fuse.add %[[V]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = fuse.rsqrt %[[VE]]
// CHECK-NEXT: %[[N:.*]] = fuse.mul %[[C]], %[[R]]
// CHECK-NEXT: %[[GF:.*]] = fuse.cast %[[G]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[NG:.*]] = fuse.mul %[[N]], %[[GF]]
// CHECK-NEXT: %[[BF:.*]] = fuse.cast %[[B]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = fuse.add %[[NG]], %[[BF]]
// CHECK-NEXT: %[[OUT:.*]] = fuse.cast %[[Y]] : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
// CHECK-NEXT: return %[[OUT]]
func.func @layer_norm_bf16(%x: tensor<2x4x8xbf16>, %g: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<2x4x8xbf16> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<2x4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<2x4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// -----

// rms_norm without a scale: no centring, one reduction.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[SQ:.*]] = fuse.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[MS:.*]] = fuse.reduce_mean %[[SQ]] axes = [1] keepdims
// CHECK-NEXT: %[[EPS:.*]] = fuse.constant dense<9.99999997E-7> : tensor<4x1xf32>
// CHECK-NEXT: %[[VE:.*]] = fuse.add %[[MS]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = fuse.rsqrt %[[VE]]
// CHECK-NEXT: %[[Y:.*]] = fuse.mul %[[X]], %[[R]]
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fuse.rms_norm %x axis = 1 epsilon = 1.0e-06 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Other ops are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: fuse.reduce_sum
// CHECK-NEXT: return
func.func @untouched(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = fuse.reduce_sum %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// attention: scores in f32 (q and k widened), grouped-query heads read as
// rows of their key/value head (4 query heads on 2: [1, 2, 12, 8]), the
// scale, the causal mask from an index row and column, a softmax whose
// fully hidden rows give 0 (max -inf -> 0, sum 0 -> 1), probabilities
// rounded to v's type for the second matmul.
// CHECK-LABEL: func.func @attention_gqa_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x6x8xbf16>, %[[K:.*]]: tensor<1x2x6x8xbf16>, %[[V:.*]]: tensor<1x2x6x4xbf16>)
// CHECK: %[[QF:.*]] = fuse.cast %[[Q]] : tensor<1x4x6x8xbf16> to tensor<1x4x6x8xf32>
// CHECK: %[[QR:.*]] = fuse.reshape %[[QF]] : tensor<1x4x6x8xf32> -> tensor<1x2x12x8xf32>
// CHECK: %[[KF:.*]] = fuse.cast %[[K]]
// CHECK: %[[S:.*]] = fuse.matmul %[[QR]], %[[KF]] transpose_b : (tensor<1x2x12x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x12x6xf32>
// CHECK: %[[SR:.*]] = fuse.reshape %[[S]] : tensor<1x2x12x6xf32> -> tensor<1x4x6x6xf32>
// CHECK: %[[SCALE:.*]] = fuse.constant dense<3.500000e-01> : tensor<f32>
// CHECK: %[[SS:.*]] = fuse.mul %[[SR]], %[[SCALE]]
// CHECK: %[[ROWS:.*]] = fuse.constant dense<{{\[\[}}0], [1], [2], [3], [4], [5]]> : tensor<6x1xi32>
// CHECK: %[[COLS:.*]] = fuse.constant dense<{{\[\[}}0, 1, 2, 3, 4, 5]]> : tensor<1x6xi32>
// CHECK: %[[VISIBLE:.*]] = fuse.compare le, %[[COLS]], %[[ROWS]]
// CHECK: %[[MASKED:.*]] = fuse.select %[[VISIBLE]], %[[SS]], %{{.*}}
// CHECK: %[[MAX:.*]] = fuse.reduce_max %[[MASKED]] axes = [3] keepdims
// CHECK: fuse.compare eq, %[[MAX]]
// CHECK: %[[TOP:.*]] = fuse.select %{{.*}}, %{{.*}}, %[[MAX]]
// CHECK: %[[E:.*]] = fuse.exp
// CHECK: %[[SUM:.*]] = fuse.reduce_sum %[[E]] axes = [3] keepdims
// CHECK: %[[L:.*]] = fuse.select %{{.*}}, %{{.*}}, %[[SUM]]
// CHECK: %[[P:.*]] = fuse.div %[[E]], %[[L]]
// CHECK: %[[PB:.*]] = fuse.cast %[[P]] : tensor<1x4x6x6xf32> to tensor<1x4x6x6xbf16>
// CHECK: %[[PR:.*]] = fuse.reshape %[[PB]] : tensor<1x4x6x6xbf16> -> tensor<1x2x12x6xbf16>
// CHECK: %[[O:.*]] = fuse.matmul %[[PR]], %[[V]] : (tensor<1x2x12x6xbf16>, tensor<1x2x6x4xbf16>) -> tensor<1x2x12x4xbf16>
// CHECK: %[[OR:.*]] = fuse.reshape %[[O]] : tensor<1x2x12x4xbf16> -> tensor<1x4x6x4xbf16>
// CHECK: return %[[OR]]
func.func @attention_gqa_causal(%q: tensor<1x4x6x8xbf16>, %k: tensor<1x2x6x8xbf16>, %v: tensor<1x2x6x4xbf16>) -> tensor<1x4x6x4xbf16> {
  %0 = fuse.attention %q, %k, %v scale = 3.500000e-01 causal : (tensor<1x4x6x8xbf16>, tensor<1x2x6x8xbf16>, tensor<1x2x6x4xbf16>) -> tensor<1x4x6x4xbf16>
  return %0 : tensor<1x4x6x4xbf16>
}

// -----

// Without a mask or causal no row can be fully hidden: the plain softmax.
// CHECK-LABEL: func.func @attention_plain
// CHECK: fuse.matmul
// CHECK-NOT: fuse.select
// CHECK: fuse.matmul
func.func @attention_plain(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32> {
  %0 = fuse.attention %q, %k, %v scale = 3.500000e-01 : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// -----

// A soft cap: c tanh(s / c) on the scaled scores, before the softmax.
// CHECK-LABEL: func.func @attention_softcap
// CHECK: %[[S:.*]] = fuse.matmul
// CHECK: %[[SCALED:.*]] = fuse.mul %[[S]], %{{.*}} : (tensor<1x2x6x6xf32>, tensor<f32>)
// CHECK: %[[DIV:.*]] = fuse.div %[[SCALED]], %{{.*}} : (tensor<1x2x6x6xf32>, tensor<f32>)
// CHECK: %[[T:.*]] = fuse.tanh %[[DIV]]
// CHECK: %[[CAPPED:.*]] = fuse.mul %[[T]], %{{.*}}
// CHECK: fuse.reduce_max %[[CAPPED]]
func.func @attention_softcap(%q: tensor<1x2x6x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32> {
  %0 = fuse.attention %q, %k, %v scale = 3.500000e-01 softcap = 30.0 : (tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// -----

// With keep-attention an attention the fused kernel computes (bf16 or f16,
// head dims multiples of 16 up to 128) stays whole; the others above are
// decomposed, and with fuse-explain a remark says why.
// KEEP: remark: attention decomposed into two matmuls around a softmax: the fused attention kernel takes head dimensions that are multiples of 16 up to 128; D is 8
// KEEP: remark: attention decomposed into two matmuls around a softmax: the fused attention kernel takes bf16 or f16 operands, not f32
// KEEP-LABEL: func.func @attention_kept
// KEEP-NEXT: fuse.attention
// KEEP-NOT: fuse.matmul
// CHECK-LABEL: func.func @attention_kept
// CHECK: fuse.matmul
func.func @attention_kept(%q: tensor<1x2x6x16xf16>, %k: tensor<1x2x6x16xf16>, %v: tensor<1x2x6x16xf16>) -> tensor<1x2x6x16xf16> {
  %0 = fuse.attention %q, %k, %v scale = 2.500000e-01 : (tensor<1x2x6x16xf16>, tensor<1x2x6x16xf16>, tensor<1x2x6x16xf16>) -> tensor<1x2x6x16xf16>
  return %0 : tensor<1x2x6x16xf16>
}

// -----

// A depthwise conv2d (groups = channels) is the sum of its taps' strided
// windows of the zero-padded input times each tap's weight per channel,
// in f32, rounded once; no gather (each output channel reads its own).
// Each sum of products is marked as the convolution's own (fuse.contract):
// its kernel may compute it with FMAs.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x4xbf16>, %[[W:.*]]: tensor<4x3x3x1xbf16>)
// CHECK: %[[TOP:.*]] = fuse.constant dense<0.000000e+00> : tensor<1x1x8x4xbf16>
// CHECK: %[[H:.*]] = fuse.concat %[[TOP]], %[[X]], %{{.*}} axis = 1 : {{.*}} -> tensor<1x10x8x4xbf16>
// CHECK: %[[P:.*]] = fuse.concat %{{.*}}, %[[H]], %{{.*}} axis = 2 : {{.*}} -> tensor<1x10x10x4xbf16>
// CHECK: fuse.slice %[[P]] offsets = [0, 0, 0, 0] sizes = [1, 4, 4, 4] strides = [1, 2, 2, 1]
// CHECK: fuse.slice %[[W]] offsets = [0, 0, 0, 0] sizes = [4, 1, 1, 1]
// CHECK-NOT: fuse.gather
// CHECK: fuse.slice %[[P]] offsets = [0, 2, 2, 0] sizes = [1, 4, 4, 4] strides = [1, 2, 2, 1]
// CHECK: fuse.slice %[[W]] offsets = [0, 2, 2, 0]
// CHECK: %[[ACC:.*]] = fuse.add {{.*}} {fuse.contract} : {{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[Y:.*]] = fuse.cast %[[ACC]] : tensor<1x4x4x4xf32> to tensor<1x4x4x4xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @depthwise(%x: tensor<1x8x8x4xbf16>, %w: tensor<4x3x3x1xbf16>) -> tensor<1x4x4x4xbf16> {
  %0 = fuse.conv2d %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 4 : (tensor<1x8x8x4xbf16>, tensor<4x3x3x1xbf16>) -> tensor<1x4x4x4xbf16>
  return %0 : tensor<1x4x4x4xbf16>
}

// -----

// Groups of two input channels: each term gathers the window's channel
// that an output channel's group reads (output o reads o / 3 * 2 + ci).
// CHECK-LABEL: func.func @grouped
// CHECK: %[[I0:.*]] = fuse.constant dense<[0, 0, 0, 2, 2, 2]> : tensor<6xi32>
// CHECK-NEXT: fuse.gather %{{.*}}, %[[I0]] axis = 3 : (tensor<1x6x6x4xf32>, tensor<6xi32>) -> tensor<1x6x6x6xf32>
// CHECK: %[[I1:.*]] = fuse.constant dense<[1, 1, 1, 3, 3, 3]> : tensor<6xi32>
func.func @grouped(%x: tensor<1x6x6x4xf32>, %w: tensor<6x1x1x2xf32>) -> tensor<1x6x6x6xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 2 : (tensor<1x6x6x4xf32>, tensor<6x1x1x2xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// A depthwise transposed convolution (an input dilation) stays a conv2d:
// the windows do not dilate their input, the GEMM kernels do.
// CHECK-LABEL: func.func @dilated_input_depthwise
// CHECK: fuse.conv2d {{.*}} groups = 4 input_dilation = [2, 2]
func.func @dilated_input_depthwise(%x: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<1x8x8x4xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 2, 1, 2] dilation = [1, 1] groups = 4 input_dilation = [2, 2] : (tensor<1x4x4x4xf32>, tensor<4x3x3x1xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// More than 64 products an output (3 x 3 taps x 8 channels a group) stays
// a conv2d, for the GEMM kernels to run one group at a time.
// CHECK-LABEL: func.func @wide_groups
// CHECK: fuse.conv2d
func.func @wide_groups(%x: tensor<1x6x6x16xf32>, %w: tensor<4x3x3x8xf32>) -> tensor<1x4x4x4xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 2 : (tensor<1x6x6x16xf32>, tensor<4x3x3x8xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A constant filter (an imported model's weights): each tap's weights are
// a constant vector of their own, which the kernel reads with whole vector
// lanes (a slice of the filter steps over the taps between channels).
// CHECK-LABEL: func.func @constant_filter
// CHECK-NOT: fuse.slice %{{.*}} : tensor<2x2x2x1xf32>
// CHECK: fuse.constant dense<[1.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK: fuse.constant dense<[2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK: fuse.constant dense<[3.000000e+00, 7.000000e+00]> : tensor<2xf32>
// CHECK: fuse.constant dense<[4.000000e+00, 8.000000e+00]> : tensor<2xf32>
func.func @constant_filter(%x: tensor<1x3x3x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = fuse.constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]], [[[5.0], [6.0]], [[7.0], [8.0]]]]> : tensor<2x2x2x1xf32>
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 2 : (tensor<1x3x3x2xf32>, tensor<2x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
