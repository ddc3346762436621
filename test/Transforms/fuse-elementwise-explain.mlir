// RUN: opfuse-opt %s -split-input-file -fuse-elementwise=fuse-explain -verify-diagnostics -o /dev/null

// With fuse-explain every decision about a shared producer, and every edge
// where a kernel stops at an op that is not elementwise, is a remark with its
// reason and the numbers behind it (expected remarks need a file of their
// own: mlir-opt reports them in every run without -verify-diagnostics).

func.func @column_then_row(%x: tensor<8x8xf32>) -> tensor<8x1xf32> {
  // A column sum, then a row sum of what it normalised: two kinds of rows,
  // two kernels.
  %c = fuse.reduce_sum %x axes = [0] keepdims : tensor<8x8xf32> -> tensor<1x8xf32>
  // expected-remark@+1 {{fuse-elementwise: not fused: it is the epilogue of 'fuse.reduce_sum' at 11:8, which cannot join this kernel; it stays in that reduction's kernel (kernel of 'fuse.reduce_sum' at 14:8)}}
  %d = fuse.div %x, %c : (tensor<8x8xf32>, tensor<1x8xf32>) -> tensor<8x8xf32>
  %r = fuse.reduce_sum %d axes = [1] keepdims : tensor<8x8xf32> -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}

// -----

func.func @multi_output(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // expected-remark@+1 {{fuse-elementwise: kept as an extra output of the kernel: 'fuse.matmul' at 24:8 needs it in memory (kernel of 'fuse.silu' at 23:8)}}
  %g = fuse.gelu %x approximate = tanh : tensor<64x64xf32>
  %h = fuse.silu %g : tensor<64x64xf32>
  %m = fuse.matmul %g, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> // expected-remark@-2 {{fuse-elementwise: not fused as the prologue of 'fuse.matmul' at 24:8: A is also read by 'fuse.silu' at 23:8, so it is written anyway (kernel of 'fuse.matmul' at 24:8)}}
  return %h, %m : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

func.func @recompute(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // expected-remark@+1 {{fuse-elementwise: recomputed in the kernel: recomputing adds 4096 FLOPs and 0 bytes (+0.00 ns predicted), reading adds 16384 bytes (+1.61 ns) on h200 (kernel of 'fuse.add' at 34:8)}}
  %e = fuse.exp %x : tensor<64x64xf32>
  %y = fuse.mul %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = fuse.add %e, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y, %z : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A bias transform shared by two kernels of another shape cannot be an extra
// output of either. Recomputing it reads as many bytes as reading it would,
// and its FLOPs hide under the memory time: a tie, which goes to recomputing.
// The second kernel then holds its only use and takes it in: exp gets no
// kernel of its own.
func.func @shape(%x: tensor<16x64xf32>, %b: tensor<64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  // expected-remark@+1 {{fuse-elementwise: recomputed in the kernel: recomputing adds 1024 FLOPs and 256 bytes (+0.03 ns predicted), reading adds 256 bytes (+0.03 ns) on h200 (kernel of 'fuse.mul' at 49:8)}}
  %t = fuse.exp %b : tensor<64xf32>
  %y = fuse.add %x, %t : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %z = fuse.mul %x, %t : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %y, %z : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// A relu read only as a matmul's A becomes the GEMM's prologue.
func.func @boundaries(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %b: tensor<32xbf16>) -> tensor<256xbf16> {
  // expected-remark@+1 {{fuse-elementwise: fused as the prologue of 'fuse.matmul' at 60:8: its kernel no longer running saves 2900.05 ns, recomputing it per column tile (1 tiles, 5 units an element) adds 0.01 ns on h200 (kernel of 'fuse.gelu' at 62:8)}}
  %r = fuse.relu %x : tensor<8x16xbf16>
  // Its kernel is gone: the GEMM reads %x and applies the relu per K slice.
  %m = fuse.matmul %r, %w : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
  %a = fuse.add %m, %b : (tensor<8x32xbf16>, tensor<32xbf16>) -> tensor<8x32xbf16>
  %g = fuse.gelu %a approximate = tanh : tensor<8x32xbf16>
  // A reshape after the last kernel is free: no remark.
  %s = fuse.reshape %g : tensor<8x32xbf16> -> tensor<256xbf16>
  return %s : tensor<256xbf16>
}

// -----

func.func @across_rows(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark@+1 {{fuse-elementwise: not fused: 'fuse.div' at 73:8 broadcasts a per-row value of shape [8] across rows, not along them (kernel of 'fuse.div' at 73:8)}}
  %s = fuse.reduce_sum %x axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %d = fuse.div %x, %s : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// -----

func.func @epilogue_stays(%x: tensor<8x16xf32>) -> tensor<4xf32> {
  %m = fuse.reduce_max %x axes = [1] keepdims : tensor<8x16xf32> -> tensor<8x1xf32>
  // expected-remark@+1 {{fuse-elementwise: not fused: it is the epilogue of 'fuse.reduce_max' at 80:8, which cannot join this kernel; it stays in that reduction's kernel (kernel of 'fuse.reduce_sum' at 84:8)}}
  %d = fuse.sub %x, %m : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %r = fuse.reshape %d : tensor<8x16xf32> -> tensor<4x2x16xf32>
  %s = fuse.reduce_sum %r axes = [1, 2] : tensor<4x2x16xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @siblings(%x: tensor<16x256xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  // expected-remark@+1 {{fuse-elementwise: merged with 'fuse.reduce_max' at 94:8's kernel: both reduce the same rows of a common input, which one kernel reads once (kernel of 'fuse.reduce_max' at 94:8)}}
  %s = fuse.reduce_sum %x axes = [1] : tensor<16x256xf32> -> tensor<16xf32>
  %sq = fuse.mul %x, %x : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  %m = fuse.reduce_max %sq axes = [1] : tensor<16x256xf32> -> tensor<16xf32>
  return %s, %m : tensor<16xf32>, tensor<16xf32>
}


// -----

// A matmul joins its elementwise consumers only; a reduction after it, or
// a second matmul, keeps its own kernel.
func.func @matmul_refusals(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %v: tensor<32x32xbf16>) -> (tensor<8xbf16>, tensor<8x32xbf16>) {
  // expected-remark@+1 {{fuse-elementwise: not fused: 'fuse.matmul' at 105:8 produces an operand of 'fuse.matmul' at 109:8; a GEMM kernel holds one GEMM, and it is not recomputed (that would read its whole inputs again) (kernel of 'fuse.relu' at 110:8)}}
  %m = fuse.matmul %x, %w : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
  // expected-remark@-1 {{fuse-elementwise: not fused: 'fuse.reduce_sum' at 108:8 cannot run in a GEMM epilogue (only elementwise ops can), and it is not recomputed (that would read its whole inputs again) (kernel of 'fuse.reduce_sum' at 108:8)}}
  %e = fuse.exp %m : tensor<8x32xbf16>
  %s = fuse.reduce_sum %e axes = [1] : tensor<8x32xbf16> -> tensor<8xbf16>
  %n = fuse.matmul %m, %v : (tensor<8x32xbf16>, tensor<32x32xbf16>) -> tensor<8x32xbf16> // expected-remark@-4 {{fuse-elementwise: not fused into 'fuse.matmul' at 109:8: a GEMM kernel reads its operands from memory unless it computes A in a prologue, so this kernel writes its result (kernel of 'fuse.matmul' at 105:8)}}
  %r = fuse.relu %n : tensor<8x32xbf16>
  return %s, %r : tensor<8xbf16>, tensor<8x32xbf16>
}

// -----

// Views after a matmul are its store layout only when the columns stay
// consecutive, and slices only with unit steps that keep column pairs whole.
func.func @matmul_store_transposed(%a: tensor<64x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<32x64xbf16> {
  // expected-remark@+1 {{fuse-elementwise: not fused: 'fuse.transpose' at 121:8 moves the columns of 'fuse.matmul' at 120:8's output apart; the GEMM stores runs of consecutive columns, so the transpose is a kernel of its own (kernel of 'fuse.transpose' at 121:8)}}
  %o = fuse.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %t = fuse.transpose %o permutation = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  return %t : tensor<32x64xbf16>
}

func.func @matmul_store_sliced_with_steps(%a: tensor<64x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<64x16xbf16> {
  // expected-remark@+2 {{fuse-elementwise: not fused: 'fuse.slice' at 129:8 has steps; a kernel writes only slices of consecutive elements of its result (kernel of 'fuse.slice' at 129:8)}}
  // expected-remark@+1 {{fuse-elementwise: the slices of its result stay views of the whole result: 'fuse.slice' at 129:8 has steps; a kernel writes only slices of consecutive elements of its result}}
  %o = fuse.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %s = fuse.slice %o offsets = [0, 0] sizes = [64, 16] strides = [1, 2] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  return %s : tensor<64x16xbf16>
}

func.func @matmul_store_sliced_odd(%a: tensor<64x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<64x15xbf16> {
  // expected-remark@+2 {{fuse-elementwise: not fused: 'fuse.slice' at 137:8 starts or ends at an odd column or row pitch; the GEMM stores pairs of columns (kernel of 'fuse.slice' at 137:8)}}
  // expected-remark@+1 {{fuse-elementwise: the slices of its result stay views of the whole result: 'fuse.slice' at 137:8 starts or ends at an odd column or row pitch; the GEMM stores pairs of columns}}
  %o = fuse.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  %s = fuse.slice %o offsets = [0, 1] sizes = [64, 15] strides = [1, 1] : tensor<64x32xbf16> -> tensor<64x15xbf16>
  return %s : tensor<64x15xbf16>
}

// Read only through slices: each slice's kernel cannot take the matmul (at
// the matmul); the slices move into the GEMM's kernel instead (at each).
func.func @matmul_store_two_slices(%a: tensor<64x64xbf16>, %b: tensor<64x32xbf16>) -> (tensor<64x16xbf16>, tensor<64x16xbf16>) {
  // expected-remark@+2 {{fuse-elementwise: not fused: its shape [64, 32] differs from the kernel's [64, 16], so it cannot be an extra output, and it is not recomputed (that would read its whole inputs again) (kernel of 'fuse.slice' at 148:8)}}
  // expected-remark@+1 {{fuse-elementwise: not fused: its shape [64, 32] differs from the kernel's [64, 16], so it cannot be an extra output, and it is not recomputed (that would read its whole inputs again) (kernel of 'fuse.slice' at 150:8)}}
  %o = fuse.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
  // expected-remark@+1 {{fuse-elementwise: moved into 'fuse.matmul' at 146:8's kernel instead, which stores it as an output of its own: the result is read only through slices, which then die with their last readers (kernel of 'fuse.matmul' at 146:8)}}
  %s = fuse.slice %o offsets = [0, 0] sizes = [64, 16] strides = [1, 1] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  // expected-remark@+1 {{fuse-elementwise: moved into 'fuse.matmul' at 146:8's kernel instead, which stores it as an output of its own: the result is read only through slices, which then die with their last readers (kernel of 'fuse.matmul' at 146:8)}}
  %t = fuse.slice %o offsets = [0, 16] sizes = [64, 16] strides = [1, 1] : tensor<64x32xbf16> -> tensor<64x16xbf16>
  return %s, %t : tensor<64x16xbf16>, tensor<64x16xbf16>
}

// -----

// An attention reads a concat of its K along the sequence piece by piece,
// but only pieces that are in memory and only a concat nothing else reads.
func.func @kv_cache_computed_piece(%q: tensor<1x2x1x64xbf16>, %kc: tensor<1x2x128x64xbf16>, %kn: tensor<1x2x1x64xbf16>, %v: tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16> {
  // expected-remark@+1 {{fuse-elementwise: not fused: 'fuse.relu' at 160:9 computes what 'fuse.concat' at 161:8 joins; the attention kernel reads the concat's inputs from memory (kernel of 'fuse.attention' at 162:8)}}
  %kr = fuse.relu %kn : tensor<1x2x1x64xbf16>
  %k = fuse.concat %kc, %kr axis = 2 : (tensor<1x2x128x64xbf16>, tensor<1x2x1x64xbf16>) -> tensor<1x2x129x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>, tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}

// -----

func.func @kv_cache_returned(%q: tensor<1x2x1x64xbf16>, %kc: tensor<1x2x128x64xbf16>, %kn: tensor<1x2x1x64xbf16>, %v: tensor<1x2x129x64xbf16>) -> (tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>) {
  // expected-remark@+2 {{fuse-elementwise: not fused: its shape [1, 2, 129, 64] differs from the kernel's [1, 2, 1, 64], so it cannot be an extra output, and recomputing it is not faster than reading it}}
  // expected-remark@+1 {{fuse-elementwise: not fused into 'fuse.attention' at 172:8: a GEMM kernel reads its operands from memory unless it computes A in a prologue, so this kernel writes its result}}
  %k = fuse.concat %kc, %kn axis = 2 : (tensor<1x2x128x64xbf16>, tensor<1x2x1x64xbf16>) -> tensor<1x2x129x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>, tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o, %k : tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>
}

// -----

func.func @kv_concat_of_heads(%q: tensor<1x2x1x64xbf16>, %ka: tensor<1x1x129x64xbf16>, %kb: tensor<1x1x129x64xbf16>, %v: tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16> {
  // expected-remark@+2 {{fuse-elementwise: not fused: 'fuse.concat' at 181:8 produces an operand of 'fuse.attention' at 182:8; a GEMM kernel reads its operands from memory, through transposes, slices and reshapes (A also through elementwise ops, an attention's K and V through a concat along the sequence axis)}}
  // expected-remark@+1 {{fuse-elementwise: not fused into 'fuse.attention' at 182:8: a GEMM kernel reads its operands from memory unless it computes A in a prologue, so this kernel writes its result}}
  %k = fuse.concat %ka, %kb axis = 1 : (tensor<1x1x129x64xbf16>, tensor<1x1x129x64xbf16>) -> tensor<1x2x129x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>, tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}

// -----

func.func @launch_bound_siblings(%q: tensor<4x128xbf16>, %k: tensor<4x128xbf16>, %cos: tensor<128xbf16>) -> (tensor<4x128xbf16>, tensor<4x128xbf16>) {
  // expected-remark@+1 {{fuse-elementwise: merged with 'fuse.mul' at 191:8's kernel: both loop over the same elements, take less than a launch and neither needs the other, so one launch does both (kernel of 'fuse.mul' at 191:8)}}
  %a = fuse.mul %q, %cos : (tensor<4x128xbf16>, tensor<128xbf16>) -> tensor<4x128xbf16>
  %b = fuse.mul %k, %cos : (tensor<4x128xbf16>, tensor<128xbf16>) -> tensor<4x128xbf16>
  return %a, %b : tensor<4x128xbf16>, tensor<4x128xbf16>
}

// -----

func.func @kv_concat_of_five(%q: tensor<1x2x1x64xbf16>, %k0: tensor<1x2x8x64xbf16>, %k1: tensor<1x2x8x64xbf16>, %k2: tensor<1x2x8x64xbf16>, %k3: tensor<1x2x8x64xbf16>, %k4: tensor<1x2x8x64xbf16>, %v: tensor<1x2x40x64xbf16>) -> tensor<1x2x1x64xbf16> {
  // expected-remark@+2 {{fuse-elementwise: not fused: 'fuse.concat' at 200:8 joins 5 tensors; the attention kernel reads at most 4 in place (kernel of 'fuse.attention' at 201:8)}}
  // expected-remark@+1 {{fuse-elementwise: not fused into 'fuse.attention' at 201:8: a GEMM kernel reads its operands from memory unless it computes A in a prologue, so this kernel writes its result}}
  %k = fuse.concat %k0, %k1, %k2, %k3, %k4 axis = 2 : (tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x2x8x64xbf16>) -> tensor<1x2x40x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x40x64xbf16>, tensor<1x2x40x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}
