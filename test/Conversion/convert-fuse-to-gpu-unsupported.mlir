// RUN: opfuse-opt %s -split-input-file -fuse-outline-kernels -convert-fuse-to-gpu -verify-diagnostics

// Ops and groups the emitters cannot compile fail at their location.

// A group whose reductions fold different axes: a column sum, then a row
// sum of what it normalised. One kernel cannot map both kinds of rows onto
// its threads.
func.func @column_then_row_in_group(%x: tensor<8x8xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{this group is not a row-reduction kernel: 'fuse.reduce_sum' at 14:10 reduces other axes of its input than the kernel's other reductions, so the rows differ}}
  %0 = fuse.group (%x) : (tensor<8x8xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x8xf32>):
    %c = fuse.reduce_sum %a axes = [0] keepdims : tensor<8x8xf32> -> tensor<1x8xf32>
    %d = fuse.div %a, %c : (tensor<8x8xf32>, tensor<1x8xf32>) -> tensor<8x8xf32>
    %r = fuse.reduce_sum %d axes = [1] keepdims : tensor<8x8xf32> -> tensor<8x1xf32>
    fuse.yield %r : tensor<8x1xf32>
  }
  return %0 : tensor<8x1xf32>
}

// -----

// A per-row sum without keepdims broadcast along the columns.
func.func @across_rows_in_group(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{this group is not a row-reduction kernel: 'fuse.div' at 28:10 broadcasts a per-row value of shape [8] across rows, not along them}}
  %0 = fuse.group (%x) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a: tensor<8x8xf32>):
    %s = fuse.reduce_sum %a axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
    %d = fuse.div %a, %s : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    fuse.yield %d : tensor<8x8xf32>
  }
  return %0 : tensor<8x8xf32>
}

// -----

// Composites are emitted as their primitives.
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'fuse.softmax' is emitted as its primitives: run fuse-decompose first}}
  %0 = fuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A gather along an axis with a larger dimension before it is not one
// NCCL call (NCCL concatenates contiguous shards).
func.func @all_gather_inner_axis(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'fuse.all_gather' along axis 1 of [4, 8] shards: NCCL gathers and scatters contiguous shards (concatenation along the outermost dimension larger than 1), so this one would need a transpose around the call, which is not built yet}}
  %0 = fuse.all_gather %x axis = 1 devices = 2 : tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @outputs_of_two_shapes(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  // expected-error@+1 {{result #1 has shape [8] but result #0 has [4, 8]; a kernel's outputs share one shape}}
  %0:2 = fuse.group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %n = fuse.neg %c : tensor<8xf32>
    %s = fuse.add %a, %n : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    fuse.yield %s, %n : tensor<4x8xf32>, tensor<8xf32>
  }
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{a fuse.group without results has no kernel}}
  fuse.group (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    fuse.yield
  }
  return
}

// -----

// A reduction over zero elements has no row to read.
func.func @empty_reduction(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{a reduction over an empty tensor is not supported for GPU emission}}
  %0 = fuse.reduce_sum %x axes = [1] : tensor<4x0xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A hand-written group with a matmul and a reduction of its result: the
// GEMM emitter claims a group with a contraction (its prologue may reduce
// A's rows), and refuses a reduction anywhere else.
func.func @matmul_with_reduction(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>) -> tensor<16xbf16> {
  // expected-error@+1 {{not one GEMM kernel: 'fuse.reduce_sum' at 96:10 cannot run in a GEMM epilogue (only elementwise ops can)}}
  %0 = fuse.group (%a, %b) : (tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16xbf16> {
  ^bb0(%x: tensor<16x16xbf16>, %y: tensor<16x16xbf16>):
    %m = fuse.matmul %x, %y : (tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16x16xbf16>
    %s = fuse.reduce_sum %m axes = [1] : tensor<16x16xbf16> -> tensor<16xbf16>
    fuse.yield %s : tensor<16xbf16>
  }
  return %0 : tensor<16xbf16>
}

// -----

// A GEMM prologue's statistics are reductions over A's last axis: one over
// its rows is refused.
func.func @statistic_over_rows(%a: tensor<4x64xf32>, %b: tensor<64x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{not one GEMM kernel: 'fuse.mul' at 111:10 computes the A operand of 'fuse.matmul' at 112:10; 'fuse.reduce_sum' at 110:10 is not a float reduction of A's shape over its last axis (keepdims), the one statistic a prologue computes per row}}
  %0 = fuse.group (%a, %b) : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<64x16xf32>):
    %s = fuse.reduce_sum %x axes = [0] keepdims : tensor<4x64xf32> -> tensor<1x64xf32>
    %n = fuse.mul %x, %s : (tensor<4x64xf32>, tensor<1x64xf32>) -> tensor<4x64xf32>
    %m = fuse.matmul %n, %y : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
    fuse.yield %m : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// -----

// A per-row value of a prologue with statistics reads only statistics and
// constants, not an input the kernel would load per row.
func.func @row_value_from_input(%a: tensor<4x64xf32>, %r: tensor<4x1xf32>, %b: tensor<64x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{not one GEMM kernel: 'fuse.mul' at 128:10 computes the A operand of 'fuse.matmul' at 129:10; 'fuse.add' at 127:10 computes a per-row value from an input; a prologue computes those from its statistics and constants only}}
  %0 = fuse.group (%a, %r, %b) : (tensor<4x64xf32>, tensor<4x1xf32>, tensor<64x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%x: tensor<4x64xf32>, %q: tensor<4x1xf32>, %y: tensor<64x16xf32>):
    %s = fuse.reduce_sum %x axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
    %t = fuse.add %s, %q : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %n = fuse.mul %x, %t : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
    %m = fuse.matmul %n, %y : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
    fuse.yield %m : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}
