// RUN: opfuse-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the fuse dialect, one per split.

//===----------------------------------------------------------------------===//
// Types shared by all ops
//===----------------------------------------------------------------------===//

func.func @dynamic_dimension(%x: tensor<?x4xf32>) {
  // expected-error@+1 {{'fuse.relu' op operand #0 must be statically shaped tensor of f32, f16, bf16, i32 or i64 values, but got 'tensor<?x4xf32>'}}
  %0 = fuse.relu %x : tensor<?x4xf32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error@+1 {{'fuse.exp' op operand #0 must be statically shaped tensor of f32, f16 or bf16 values, but got 'tensor<*xf32>'}}
  %0 = "fuse.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @f64_not_supported(%x: tensor<4xf64>) {
  // expected-error@+1 {{'fuse.neg' op operand #0 must be statically shaped tensor of f32, f16, bf16, i32 or i64 values, but got 'tensor<4xf64>'}}
  %0 = fuse.neg %x : tensor<4xf64>
  return
}

// -----

func.func @float_op_on_integers(%x: tensor<4xi32>) {
  // expected-error@+1 {{'fuse.exp' op operand #0 must be statically shaped tensor of f32, f16 or bf16 values, but got 'tensor<4xi32>'}}
  %0 = fuse.exp %x : tensor<4xi32>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.neg' op failed to verify that all of {input, result} have same type}}
  %0 = "fuse.neg"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Broadcasting elementwise
//===----------------------------------------------------------------------===//

func.func @not_broadcastable(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.add' op operands are not broadcast-compatible: lhs dimension 1 is 3 but rhs dimension 0 is 4 (shapes [4, 3] and [4])}}
  %0 = fuse.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @element_types_differ(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{'fuse.mul' op operand element types differ: lhs is f32 but rhs is f16}}
  %0 = fuse.mul %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_result_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error@+1 {{'fuse.sub' op result #0 has type 'tensor<4x9xf32>' but the operands and attributes give 'tensor<4x8xf32>'}}
  %0 = fuse.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @pow_on_integers(%a: tensor<4xi32>) {
  // expected-error@+1 {{'fuse.pow' op operand #0 must be statically shaped tensor of f32, f16 or bf16 values, but got 'tensor<4xi32>'}}
  %0 = fuse.pow %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error@+1 {{'fuse.compare' op operand element types differ: lhs is f32 but rhs is i32}}
  %0 = fuse.compare lt, %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.compare' op result #0 must be statically shaped tensor of i1 values, but got 'tensor<4xf32>'}}
  %0 = fuse.compare lt, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_choices_differ(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error@+1 {{'fuse.select' op operand element types differ: on_true is f32 but on_false is bf16}}
  %0 = fuse.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @select_condition_shape(%c: tensor<3xi1>, %a: tensor<2x4xf32>) {
  // expected-error@+1 {{'fuse.select' op operands are not broadcast-compatible: condition dimension 0 is 3 but on_true/on_false dimension 1 is 4 (shapes [3] and [2, 4])}}
  %0 = fuse.select %c, %a, %a : (tensor<3xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @select_condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.select' op operand #0 must be statically shaped tensor of i1 values, but got 'tensor<4xf32>'}}
  %0 = fuse.select %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{'fuse.cast' op result shape [4, 8] differs from input shape [4, 4]; a cast changes only the element type}}
  %0 = fuse.cast %a : tensor<4x4xf32> to tensor<4x8xbf16>
  return
}

// -----

func.func @constant_f64() {
  // expected-error@+1 {{'fuse.constant' op result #0 must be statically shaped tensor of f32, f16, bf16, i32, i64 or i1 values, but got 'tensor<4xf64>'}}
  %0 = fuse.constant dense<1.0> : tensor<4xf64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

func.func @reduce_no_axes(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reduce_sum' op axes must not be empty}}
  %0 = fuse.reduce_sum %x axes = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reduce_max' op axis 2 is out of range for an input of rank 2}}
  %0 = fuse.reduce_max %x axes = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axes_order(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reduce_sum' op axes must be strictly increasing, got [1, 0]}}
  %0 = fuse.reduce_sum %x axes = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reduce_sum' op result #0 has type 'tensor<4xf32>' but the operands and attributes give 'tensor<4x1xf32>'}}
  %0 = fuse.reduce_sum %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_mean_integers(%x: tensor<4x8xi32>) {
  // expected-error@+1 {{'fuse.reduce_mean' op operand #0 must be statically shaped tensor of f32, f16 or bf16 values, but got 'tensor<4x8xi32>'}}
  %0 = fuse.reduce_mean %x axes = [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.softmax' op axis 2 is out of range for an input of rank 2}}
  %0 = fuse.softmax %x axis = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0}}
  %0 = fuse.softmax %x axis = -1 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.layer_norm' op axis 3 is out of range for an input of rank 2}}
  %0 = fuse.layer_norm %x axis = 3 epsilon = 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.layer_norm' op scale shape [4, 8] must equal the normalised input shape [8]}}
  %0 = fuse.layer_norm %x scale %g axis = 1 epsilon = 1.0e-05 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%x: tensor<4x8xf32>, %b: tensor<8xbf16>) {
  // expected-error@+1 {{'fuse.layer_norm' op bias element type must match the input's}}
  %0 = fuse.layer_norm %x bias %b axis = 1 epsilon = 1.0e-05 : (tensor<4x8xf32>, tensor<8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_scale_shape(%x: tensor<4x8xbf16>, %g: tensor<4xbf16>) {
  // expected-error@+1 {{'fuse.rms_norm' op scale shape [4] must equal the normalised input shape [8]}}
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reshape' op result shape [3, 8] holds 24 elements but input shape [4, 8] holds 32}}
  %0 = fuse.reshape %x : tensor<4x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.reshape' op result element type 'f16' differs from input element type 'f32'}}
  %0 = fuse.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @transpose_length(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.transpose' op permutation has 3 entries but the input has rank 2}}
  %0 = fuse.transpose %x permutation = [2, 1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %0 = fuse.transpose %x permutation = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.transpose' op result #0 has type 'tensor<4x8xf32>' but the operands and attributes give 'tensor<8x4xf32>'}}
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<8xf32>) {
  // expected-error@+1 {{'fuse.broadcast_to' op result element type 'bf16' differs from input element type 'f32'}}
  %0 = fuse.broadcast_to %x : tensor<8xf32> -> tensor<4x8xbf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'fuse.broadcast_to' op input rank 2 exceeds result rank 1; broadcasting only adds dimensions}}
  %0 = fuse.broadcast_to %x : tensor<2x8xf32> -> tensor<16xf32>
  return
}

// -----

func.func @broadcast_dimension(%x: tensor<3x8xf32>) {
  // expected-error@+1 {{'fuse.broadcast_to' op input dimension 0 is 3 but result dimension 1 is 4; expected 1 or 4}}
  %0 = fuse.broadcast_to %x : tensor<3x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.slice' op sizes has 1 entries but the input has rank 2}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [4] strides = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.slice' op dimension 1: offset 0, size 2, stride 0 (expected offset >= 0, size >= 1, stride >= 1)}}
  %0 = fuse.slice %x offsets = [0, 0] sizes = [4, 2] strides = [1, 0] : tensor<4x8xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @slice_window(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.slice' op dimension 1: the window ends at 8 but the input has size 8}}
  %0 = fuse.slice %x offsets = [0, 2] sizes = [4, 4] strides = [1, 2] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error@+1 {{'fuse.concat' op needs at least one input}}
  %0 = fuse.concat axis = 0 : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.concat' op axis 2 is out of range for inputs of rank 2}}
  %0 = fuse.concat %x, %x axis = 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @concat_element_type(%x: tensor<4x8xf32>, %y: tensor<4x8xf16>) {
  // expected-error@+1 {{'fuse.concat' op input #1 element type differs from input #0's}}
  %0 = fuse.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<8x8xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error@+1 {{'fuse.concat' op input #1 has rank 1 but input #0 has 2}}
  %0 = fuse.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @concat_dimension(%x: tensor<4x8xf32>, %y: tensor<4x7xf32>) {
  // expected-error@+1 {{'fuse.concat' op input #1 dimension 1 is 7 but input #0's is 8 (only the concatenation axis 0 may differ)}}
  %0 = fuse.concat %x, %y axis = 0 : (tensor<4x8xf32>, tensor<4x7xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error@+1 {{'fuse.gather' op axis 2 is out of range for data of rank 2}}
  %0 = fuse.gather %t, %i axis = 2 : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error@+1 {{'fuse.gather' op operand #1 must be statically shaped tensor of i32 or i64 values, but got 'tensor<3xf32>'}}
  %0 = fuse.gather %t, %i axis = 0 : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Compute-bound
//===----------------------------------------------------------------------===//

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error@+1 {{'fuse.matmul' op lhs must have rank >= 2, got rank 1}}
  %0 = fuse.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xbf16>, %b: tensor<8x4xf16>) {
  // expected-error@+1 {{'fuse.matmul' op operand element types differ: lhs and rhs must have the same element type}}
  %0 = fuse.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x4xf16>) -> tensor<4x4xbf16>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x64xf32>, %b: tensor<32x4xf32>) {
  // expected-error@+1 {{'fuse.matmul' op contraction dimensions differ: lhs K is 64 (dimension 1) but rhs K is 32 (dimension 0)}}
  %0 = fuse.matmul %a, %b : (tensor<4x64xf32>, tensor<32x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) {
  // expected-error@+1 {{'fuse.matmul' op contraction dimensions differ: lhs K is 4 (dimension 0) but rhs K is 64 (dimension 1)}}
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<64x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<3x4x8xf32>, %b: tensor<5x8x4xf32>) {
  // expected-error@+1 {{'fuse.matmul' op operands are not broadcast-compatible: lhs batch dimension 0 is 3 but rhs batch dimension 0 is 5 (shapes [3] and [5])}}
  %0 = fuse.matmul %a, %b : (tensor<3x4x8xf32>, tensor<5x8x4xf32>) -> tensor<3x4x4xf32>
  return
}

// -----

func.func @matmul_integers(%a: tensor<4x8xi32>) {
  // expected-error@+1 {{'fuse.matmul' op operand #0 must be statically shaped tensor of f32, f16 or bf16 values, but got 'tensor<4x8xi32>'}}
  %0 = fuse.matmul %a, %a : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @conv_input_rank(%x: tensor<56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) {
  // expected-error@+1 {{'fuse.conv2d' op input must be NHWC (rank 4), got rank 3}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<56x56x64xbf16>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x56x56x64xbf16>, %w: tensor<3x3x64xbf16>) {
  // expected-error@+1 {{'fuse.conv2d' op filter must be [F, KH, KW, C/groups] (rank 4), got rank 3}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x56x56x64xbf16>, tensor<3x3x64xbf16>) -> tensor<1x56x56x64xbf16>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x8x8x4xbf16>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op operand element types differ: input and filter must have the same element type}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x8x8x4xbf16>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xbf16>
  return
}

// -----

func.func @conv_attribute_lengths(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op expected 2 strides, 4 paddings and 2 dilations, got 2, 2 and 2}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op strides, dilation and input_dilation must be >= 1 and padding >= 0}}
  %0 = fuse.conv2d %x, %w strides = [0, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_input_dilation_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op strides, dilation and input_dilation must be >= 1 and padding >= 0}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 input_dilation = [0, 2]
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_input_dilation_length(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op expected 2 input dilations, got 1}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 input_dilation = [2]
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_input_dilation_shape(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op result #0 has type 'tensor<1x8x8x4xf32>' but the operands and attributes give 'tensor<1x15x15x4xf32>'}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 input_dilation = [2, 2]
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_groups_divide(%x: tensor<1x8x8x6xf32>, %w: tensor<4x3x3x2xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op groups (3) must divide the input channels (6) and the filter count (4)}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 3
      : (tensor<1x8x8x6xf32>, tensor<4x3x3x2xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_filter_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x2xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op filter dimension 3 is 2 but input channels / groups is 4}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x2xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op height: the dilated kernel (7) is larger than the padded input (4)}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [0, 0, 0, 0] dilation = [3, 3] groups = 1
      : (tensor<1x4x4x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x1x1x4xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) {
  // expected-error@+1 {{'fuse.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 0
      : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Communication-bound
//===----------------------------------------------------------------------===//

func.func @all_reduce_devices(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.all_reduce' op attribute 'devices' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %0 = fuse.all_reduce sum, %x devices = 0 : tensor<4xf32>
  return
}

// -----

func.func @all_reduce_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{'fuse.all_reduce' op operand #0 must be statically shaped tensor of f32, f16, bf16, i32 or i64 values, but got 'tensor<4xi1>'}}
  %0 = fuse.all_reduce max, %x devices = 2 : tensor<4xi1>
  return
}

// -----

func.func @all_gather_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.all_gather' op axis 2 is out of range for an input of rank 2}}
  %0 = fuse.all_gather %x axis = 2 devices = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @all_gather_result(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'fuse.all_gather' op result #0 has type 'tensor<4x8xf32>' but the operands and attributes give 'tensor<4x16xf32>'}}
  %0 = fuse.all_gather %x axis = 1 devices = 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_scatter_divide(%x: tensor<6x8xf32>) {
  // expected-error@+1 {{'fuse.reduce_scatter' op dimension 0 (6) does not divide evenly among 4 devices}}
  %0 = fuse.reduce_scatter sum, %x axis = 0 devices = 4 : tensor<6x8xf32> -> tensor<1x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// fuse.group and fuse.yield
//===----------------------------------------------------------------------===//

func.func @group_argument_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.group' op body has 0 arguments but the group has 1 inputs}}
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = fuse.constant dense<1.0> : tensor<4xf32>
    fuse.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @group_argument_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.group' op body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    fuse.yield %a : tensor<4xf16>
  }
  return
}

// -----

func.func @group_without_terminator(%x: tensor<4xf32>) {
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error@+1 {{block with no terminator}}
    %r = fuse.relu %a : tensor<4xf32>
  }
  return
}

// -----

func.func @group_foreign_terminator(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.group' op body must end with fuse.yield}}
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    llvm.unreachable
  }
  return
}

// -----

func.func @group_yield_count(%x: tensor<4xf32>) {
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error@+1 {{'fuse.yield' op yields 2 values but the group has 1 results}}
    fuse.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @group_yield_type(%x: tensor<4xf32>) {
  %0 = fuse.group (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error@+1 {{'fuse.yield' op value #0 has type 'tensor<4xf32>' but group result #0 has type 'tensor<4xbf16>'}}
    fuse.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @group_isolated(%x: tensor<4xf32>) {
  // expected-note@+1 {{required by region isolation constraints}}
  %0 = fuse.group () : () -> tensor<4xf32> {
    // expected-error@+1 {{'fuse.relu' op using value defined outside the region}}
    %r = fuse.relu %x : tensor<4xf32>
    fuse.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'fuse.yield' op expects parent op 'fuse.group'}}
  fuse.yield %x : tensor<4xf32>
}

// -----

func.func @attention_rank(%q: tensor<8x128x64xf32>, %k: tensor<1x8x128x64xf32>, %v: tensor<1x8x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op q must be [batch, heads, sequence, head dim] (rank 4), got rank 3}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>) -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_types(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xbf16>, %v: tensor<1x8x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op q, k and v must have one element type; k differs from q}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<1x8x128x64xf32>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xf32>) -> tensor<1x8x128x64xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<1x6x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op q's 6 heads must be a multiple of k's and v's 4}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<1x6x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<1x6x128x64xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x32xf32>, %v: tensor<1x4x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op q and k must have the same head dim (dimension 3): 64 and 32}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<1x4x128x64xf32>, tensor<1x4x128x32xf32>, tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32>
  return
}

// -----

func.func @attention_kv_length(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x100x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op k and v must have the same sequence length (dimension 2): 128 and 100}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x100x64xf32>) -> tensor<1x4x128x64xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x100x64xf32>, %v: tensor<1x4x100x64xf32>, %m: tensor<1x1x128x128xf32>) {
  // expected-error@+1 {{'fuse.attention' op mask must broadcast to the scores [1, 4, 128, 100]}}
  %0 = fuse.attention %q, %k, %v mask %m scale = 1.0 : (tensor<1x4x128x64xf32>, tensor<1x4x100x64xf32>, tensor<1x4x100x64xf32>, tensor<1x1x128x128xf32>) -> tensor<1x4x128x64xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op q, k and v must have the same batch (dimension 0): 2, 1, 1}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<2x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<2x4x128x64xf32>
  return
}

// -----

func.func @attention_kv_heads(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x2x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op k and v must have the same heads (dimension 1): 4 and 2}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x2x128x64xf32>) -> tensor<1x4x128x64xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>, %m: tensor<128x128xbf16>) {
  // expected-error@+1 {{'fuse.attention' op mask must have q's element type (an additive mask; -inf hides a key)}}
  %0 = fuse.attention %q, %k, %v mask %m scale = 1.0 : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<128x128xbf16>) -> tensor<1x4x128x64xf32>
  return
}

// -----

func.func @attention_softcap(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) {
  // expected-error@+1 {{'fuse.attention' op softcap must be positive (c tanh(s / c)), got -2.000000}}
  %0 = fuse.attention %q, %k, %v scale = 1.0 softcap = -2.0 : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32>
  return
}
