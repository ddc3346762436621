// Data movement inside kernels: transposes, slices, concats and gathers
// read as index maps by the view emitter (test/GPU/views.test).

// The minor dimension moves: input lanes are a row apart.
func.func @transpose_2d(%x: tensor<64x96xf32>) -> tensor<96x64xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<64x96xf32> -> tensor<96x64xf32>
  %r = fuse.relu %t : tensor<96x64xf32>
  return %r : tensor<96x64xf32>
}

// Heads out of [B, S, H, D]: the minor dimension stays, lanes stay
// consecutive.
func.func @split_heads(%x: tensor<2x16x4x32xbf16>, %s: tensor<bf16>) -> tensor<2x4x16x32xbf16> {
  %t = fuse.transpose %x permutation = [0, 2, 1, 3] : tensor<2x16x4x32xbf16> -> tensor<2x4x16x32xbf16>
  %m = fuse.mul %t, %s : (tensor<2x4x16x32xbf16>, tensor<bf16>) -> tensor<2x4x16x32xbf16>
  return %m : tensor<2x4x16x32xbf16>
}

// One of Q, K, V out of a fused projection's columns.
func.func @slice_qkv(%qkv: tensor<8x192xf16>) -> tensor<8x64xf16> {
  %k = fuse.slice %qkv offsets = [0, 64] sizes = [8, 64] strides = [1, 1] : tensor<8x192xf16> -> tensor<8x64xf16>
  %e = fuse.exp %k : tensor<8x64xf16>
  return %e : tensor<8x64xf16>
}

// Rotary embedding written with slices and a concat: x * cos +
// concat(-x2, x1) * sin.
func.func @rotary(%x: tensor<4x8x64xf32>, %cos: tensor<8x64xf32>, %sin: tensor<8x64xf32>) -> tensor<4x8x64xf32> {
  %x1 = fuse.slice %x offsets = [0, 0, 0] sizes = [4, 8, 32] strides = [1, 1, 1] : tensor<4x8x64xf32> -> tensor<4x8x32xf32>
  %x2 = fuse.slice %x offsets = [0, 0, 32] sizes = [4, 8, 32] strides = [1, 1, 1] : tensor<4x8x64xf32> -> tensor<4x8x32xf32>
  %n = fuse.neg %x2 : tensor<4x8x32xf32>
  %r = fuse.concat %n, %x1 axis = 2 : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x64xf32>
  %a = fuse.mul %x, %cos : (tensor<4x8x64xf32>, tensor<8x64xf32>) -> tensor<4x8x64xf32>
  %b = fuse.mul %r, %sin : (tensor<4x8x64xf32>, tensor<8x64xf32>) -> tensor<4x8x64xf32>
  %y = fuse.add %a, %b : (tensor<4x8x64xf32>, tensor<4x8x64xf32>) -> tensor<4x8x64xf32>
  return %y : tensor<4x8x64xf32>
}

// Rows of two tensors, one after the other.
func.func @concat_rows(%a: tensor<3x16xf32>, %b: tensor<5x16xf32>) -> tensor<8x16xf32> {
  %c = fuse.concat %a, %b axis = 0 : (tensor<3x16xf32>, tensor<5x16xf32>) -> tensor<8x16xf32>
  %e = fuse.exp %c : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// Columns of sizes that are not whole vectors: one element per thread.
func.func @concat_ragged(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %c = fuse.concat %a, %b axis = 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  %t = fuse.tanh %c : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// An embedding lookup plus positions (the generated ids are in [-8, 8]:
// abs keeps them in range).
func.func @embedding(%table: tensor<100x64xf32>, %ids: tensor<4x8xi32>, %pos: tensor<8x64xf32>) -> tensor<4x8x64xf32> {
  %i = fuse.abs %ids : tensor<4x8xi32>
  %g = fuse.gather %table, %i axis = 0 : (tensor<100x64xf32>, tensor<4x8xi32>) -> tensor<4x8x64xf32>
  %y = fuse.add %g, %pos : (tensor<4x8x64xf32>, tensor<8x64xf32>) -> tensor<4x8x64xf32>
  return %y : tensor<4x8x64xf32>
}

// A gather along the minor dimension: the vector's lanes index different
// columns, so one element per thread.
func.func @gather_columns(%data: tensor<16x50xf32>, %ids: tensor<12xi64>) -> tensor<16x12xf32> {
  %i = fuse.abs %ids : tensor<12xi64>
  %g = fuse.gather %data, %i axis = 1 : (tensor<16x50xf32>, tensor<12xi64>) -> tensor<16x12xf32>
  %s = fuse.sigmoid %g : tensor<16x12xf32>
  return %s : tensor<16x12xf32>
}

// A strided window.
func.func @strided(%x: tensor<16x64xf32>) -> tensor<8x32xf32> {
  %s = fuse.slice %x offsets = [1, 0] sizes = [8, 32] strides = [2, 2] : tensor<16x64xf32> -> tensor<8x32xf32>
  %r = fuse.relu %s : tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// A reshape into heads, then a transpose, fed by an elementwise producer.
func.func @reshape_transpose(%x: tensor<8x64xbf16>, %b: tensor<64xbf16>) -> tensor<4x8x16xbf16> {
  %a = fuse.add %x, %b : (tensor<8x64xbf16>, tensor<64xbf16>) -> tensor<8x64xbf16>
  %r = fuse.reshape %a : tensor<8x64xbf16> -> tensor<8x4x16xbf16>
  %t = fuse.transpose %r permutation = [1, 0, 2] : tensor<8x4x16xbf16> -> tensor<4x8x16xbf16>
  return %t : tensor<4x8x16xbf16>
}

// A transpose alone, with nothing to fuse: a kernel of its own.
func.func @lone_transpose(%x: tensor<32x48xbf16>) -> tensor<48x32xbf16> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<32x48xbf16> -> tensor<48x32xbf16>
  return %t : tensor<48x32xbf16>
}

// A transpose of the minor dimension beside a slice: no tile, the view
// emitter reads the lanes a row apart one by one.
func.func @transpose_slice(%x: tensor<64x96xf32>) -> tensor<48x64xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<64x96xf32> -> tensor<96x64xf32>
  %s = fuse.slice %t offsets = [8, 0] sizes = [48, 64] strides = [1, 1] : tensor<96x64xf32> -> tensor<48x64xf32>
  %n = fuse.neg %s : tensor<48x64xf32>
  return %n : tensor<48x64xf32>
}

// A 3-D transpose of the minor dimension with an epilogue and a prologue
// reading a broadcast bias, in bf16 (64-wide tiles), partial tiles on
// both edges.
func.func @transpose_3d_bf16(%x: tensor<3x72x100xbf16>, %b: tensor<100xbf16>, %r: tensor<3x100x72xbf16>) -> tensor<3x100x72xbf16> {
  %a = fuse.add %x, %b : (tensor<3x72x100xbf16>, tensor<100xbf16>) -> tensor<3x72x100xbf16>
  %t = fuse.transpose %a permutation = [0, 2, 1] : tensor<3x72x100xbf16> -> tensor<3x100x72xbf16>
  %y = fuse.add %t, %r : (tensor<3x100x72xbf16>, tensor<3x100x72xbf16>) -> tensor<3x100x72xbf16>
  return %y : tensor<3x100x72xbf16>
}

// A decode step's new key, split out of the QKV projection by a slice and
// a reshape smaller than the concat it joins (an index map in the concat's
// kernel), appended to a ragged cache.
func.func @key_into_cache(%qkv: tensor<3x1x450xbf16>, %cache: tensor<3x3x77x50xbf16>) -> tensor<3x3x78x50xbf16> {
  %s = fuse.slice %qkv offsets = [0, 0, 150] sizes = [3, 1, 150] strides = [1, 1, 1] : tensor<3x1x450xbf16> -> tensor<3x1x150xbf16>
  %r = fuse.reshape %s : tensor<3x1x150xbf16> -> tensor<3x1x3x50xbf16>
  %t = fuse.transpose %r permutation = [0, 2, 1, 3] : tensor<3x1x3x50xbf16> -> tensor<3x3x1x50xbf16>
  %c = fuse.concat %cache, %t axis = 2 : (tensor<3x3x77x50xbf16>, tensor<3x3x1x50xbf16>) -> tensor<3x3x78x50xbf16>
  return %c : tensor<3x3x78x50xbf16>
}

// Transposes whose output rows do not start on 32-byte sectors: tiles of
// 4- and 8-byte outputs are skewed so each row's segments start on one
// (TransposeEmitter.cpp) where they are at least four tiles long and the
// grid has four tiles an SM (these run on a target of 4 SMs). 314 f32
// output columns: six tiles across where straight ones take five, the
// first and last segments of each row stored lane by lane.
func.func @transpose_skew_f32(%x: tensor<314x131xf32>) -> tensor<131x314xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<314x131xf32> -> tensor<131x314xf32>
  return %t : tensor<131x314xf32>
}

// Batched, with a prologue reading a bias, an epilogue of constants only,
// and two outputs: each batch's rows start at another lag.
func.func @transpose_skew_batched(%x: tensor<3x261x70xf32>, %b: tensor<70xf32>) -> (tensor<3x70x261xf32>, tensor<3x70x261xf32>) {
  %a = fuse.add %x, %b : (tensor<3x261x70xf32>, tensor<70xf32>) -> tensor<3x261x70xf32>
  %t = fuse.transpose %a permutation = [0, 2, 1] : tensor<3x261x70xf32> -> tensor<3x70x261xf32>
  %c = fuse.constant dense<0.25> : tensor<f32>
  %s = fuse.mul %t, %c : (tensor<3x70x261xf32>, tensor<f32>) -> tensor<3x70x261xf32>
  %e = fuse.exp %s : tensor<3x70x261xf32>
  return %t, %e : tensor<3x70x261xf32>, tensor<3x70x261xf32>
}

// i64: 32 x 32 tiles and sectors of four elements.
func.func @transpose_skew_i64(%x: tensor<133x100xi64>) -> tensor<100x133xi64> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<133x100xi64> -> tensor<100x133xi64>
  return %t : tensor<100x133xi64>
}

// An f16 tile stored as f32: sectors of eight elements, vectors of four.
func.func @transpose_skew_cast(%x: tensor<262x200xf16>) -> tensor<200x262xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<262x200xf16> -> tensor<200x262xf16>
  %h = fuse.cast %t : tensor<200x262xf16> to tensor<200x262xf32>
  return %h : tensor<200x262xf32>
}

// Rows shorter than a sector (straight: too short to skew).
func.func @transpose_skew_tiny(%x: tensor<5x3xf32>) -> tensor<3x5xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<5x3xf32> -> tensor<3x5xf32>
  return %t : tensor<3x5xf32>
}

// 2-byte outputs stay straight: ragged bf16 rows, two outputs.
func.func @transpose_ragged_bf16(%x: tensor<3x77x45xbf16>) -> (tensor<3x45x77xbf16>, tensor<3x45x77xbf16>) {
  %t = fuse.transpose %x permutation = [0, 2, 1] : tensor<3x77x45xbf16> -> tensor<3x45x77xbf16>
  %e = fuse.exp %t : tensor<3x45x77xbf16>
  return %t, %e : tensor<3x45x77xbf16>, tensor<3x45x77xbf16>
}

// 4 x 4 blocks transposed in registers (rows whole vectors on both sides,
// a 4-byte tile): batched, a prologue reading a bias, an epilogue, two
// outputs, partial tiles on both edges.
func.func @transpose_blocked_f32(%x: tensor<3x132x200xf32>, %b: tensor<200xf32>) -> (tensor<3x200x132xf32>, tensor<3x200x132xf32>) {
  %a = fuse.add %x, %b : (tensor<3x132x200xf32>, tensor<200xf32>) -> tensor<3x132x200xf32>
  %t = fuse.transpose %a permutation = [0, 2, 1] : tensor<3x132x200xf32> -> tensor<3x200x132xf32>
  %r = fuse.relu %t : tensor<3x200x132xf32>
  return %t, %r : tensor<3x200x132xf32>, tensor<3x200x132xf32>
}

// f16 blocks (8-byte vectors of a 4-byte tile): a broadcast bias before,
// gelu after, partial tiles on both edges (rows of 204 and 132).
func.func @transpose_blocked_f16(%x: tensor<2x132x204xf16>, %b: tensor<204xf16>) -> tensor<2x204x132xf16> {
  %a = fuse.add %x, %b : (tensor<2x132x204xf16>, tensor<204xf16>) -> tensor<2x132x204xf16>
  %t = fuse.transpose %a permutation = [0, 2, 1] : tensor<2x132x204xf16> -> tensor<2x204x132xf16>
  %g = fuse.gelu %t approximate = none : tensor<2x204x132xf16>
  return %g : tensor<2x204x132xf16>
}

// i32, a single partial tile each way.
func.func @transpose_blocked_i32(%x: tensor<100x68xi32>) -> tensor<68x100xi32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<100x68xi32> -> tensor<68x100xi32>
  return %t : tensor<68x100xi32>
}
