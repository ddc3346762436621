// Matmuls at the shapes the tensor-core GEMM emitter treats differently:
// whole tiles, ragged M/N/K (zero-filled copies, guarded stores), leading
// dimensions that are multiples of 4 or 2 only (8- and 4-byte cp.async) or
// odd (plain loads), odd N (unpaired stores), both transposes, batches
// with broadcasting, f16, K longer than the pipeline, and fused
// epilogues (bias + GELU, SiLU, residual, cast) with extra outputs.

func.func @bias_gelu(%a: tensor<256x128xbf16>, %b: tensor<128x256xbf16>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<256x128xbf16>, tensor<128x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %bias : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<256x256xbf16>
  return %2 : tensor<256x256xbf16>
}

func.func @ragged(%a: tensor<1000x1000xbf16>, %b: tensor<1000x1000xbf16>) -> tensor<1000x1000xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<1000x1000xbf16>, tensor<1000x1000xbf16>) -> tensor<1000x1000xbf16>
  return %0 : tensor<1000x1000xbf16>
}

func.func @ragged_transposed(%a: tensor<300x200xbf16>, %b: tensor<100x300xbf16>) -> tensor<200x100xbf16> {
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<300x200xbf16>, tensor<100x300xbf16>) -> tensor<200x100xbf16>
  return %0 : tensor<200x100xbf16>
}

func.func @transpose_a(%a: tensor<96x160xf16>, %b: tensor<96x72xf16>) -> tensor<160x72xf16> {
  %0 = fuse.matmul %a, %b transpose_a : (tensor<96x160xf16>, tensor<96x72xf16>) -> tensor<160x72xf16>
  return %0 : tensor<160x72xf16>
}

func.func @transpose_b_k4(%a: tensor<130x100xbf16>, %b: tensor<260x100xbf16>) -> tensor<130x260xbf16> {
  %0 = fuse.matmul %a, %b transpose_b : (tensor<130x100xbf16>, tensor<260x100xbf16>) -> tensor<130x260xbf16>
  return %0 : tensor<130x260xbf16>
}

func.func @k2_odd_n(%a: tensor<70x50xbf16>, %b: tensor<50x33xbf16>) -> tensor<70x33xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<70x50xbf16>, tensor<50x33xbf16>) -> tensor<70x33xbf16>
  return %0 : tensor<70x33xbf16>
}

func.func @odd_everything(%a: tensor<77x45xbf16>, %b: tensor<45x31xbf16>) -> tensor<77x31xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<77x45xbf16>, tensor<45x31xbf16>) -> tensor<77x31xbf16>
  return %0 : tensor<77x31xbf16>
}

func.func @batched_broadcast(%a: tensor<3x4x130x64xbf16>, %b: tensor<4x64x72xbf16>) -> tensor<3x4x130x72xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<3x4x130x64xbf16>, tensor<4x64x72xbf16>) -> tensor<3x4x130x72xbf16>
  return %0 : tensor<3x4x130x72xbf16>
}

func.func @long_k(%a: tensor<128x4096xbf16>, %b: tensor<4096x128xbf16>) -> tensor<128x128xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<128x4096xbf16>, tensor<4096x128xbf16>) -> tensor<128x128xbf16>
  return %0 : tensor<128x128xbf16>
}

func.func @silu_residual_cast(%a: tensor<200x256xbf16>, %b: tensor<256x192xbf16>, %r: tensor<200x192xbf16>) -> (tensor<200x192xf32>, tensor<200x192xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<200x256xbf16>, tensor<256x192xbf16>) -> tensor<200x192xbf16>
  %1 = fuse.silu %0 : tensor<200x192xbf16>
  %2 = fuse.add %1, %r : (tensor<200x192xbf16>, tensor<200x192xbf16>) -> tensor<200x192xbf16>
  %3 = fuse.cast %2 : tensor<200x192xbf16> to tensor<200x192xf32>
  return %3, %0 : tensor<200x192xf32>, tensor<200x192xbf16>
}

func.func @f32_ragged(%a: tensor<300x200xf32>, %b: tensor<200x130xf32>, %bias: tensor<130xf32>) -> tensor<300x130xf32> {
  %0 = fuse.matmul %a, %b : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  %1 = fuse.add %0, %bias : (tensor<300x130xf32>, tensor<130xf32>) -> tensor<300x130xf32>
  return %1 : tensor<300x130xf32>
}

func.func @f32_transposed_odd(%a: tensor<33x70xf32>, %b: tensor<45x33xf32>) -> tensor<70x45xf32> {
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<33x70xf32>, tensor<45x33xf32>) -> tensor<70x45xf32>
  return %0 : tensor<70x45xf32>
}

func.func @f32_conv(%x: tensor<2x9x9x12xf32>, %w: tensor<20x3x3x12xf32>) -> tensor<2x9x9x20xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<2x9x9x12xf32>, tensor<20x3x3x12xf32>) -> tensor<2x9x9x20xf32>
  return %0 : tensor<2x9x9x20xf32>
}

// More tiles than the GPU holds blocks: each block of the persistent wgmma
// kernel walks several tiles (of both batch elements, ragged at the edges)
// and prefetches the next one's slices under the epilogue.
func.func @many_tiles(%a: tensor<2x1500x200xbf16>, %b: tensor<200x2100xbf16>, %bias: tensor<2100xbf16>) -> tensor<2x1500x2100xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<2x1500x200xbf16>, tensor<200x2100xbf16>) -> tensor<2x1500x2100xbf16>
  %1 = fuse.add %0, %bias : (tensor<2x1500x2100xbf16>, tensor<2100xbf16>) -> tensor<2x1500x2100xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<2x1500x2100xbf16>
  return %2 : tensor<2x1500x2100xbf16>
}

// TMA copies (rows 16-byte aligned): a batched A through a 3-D tensor map,
// a B shared by the batch through a 2-D one. M, N and K are ragged (the
// boxes past the edges are zero-filled), K is 6 slices of 64, which no
// stage count of 4 divides, and each block walks several tiles, so the
// stage barriers' phases must be counted across a block's tiles.
func.func @tma_batched(%a: tensor<3x1000x328xbf16>, %b: tensor<328x2104xbf16>, %bias: tensor<2104xbf16>) -> tensor<3x1000x2104xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<3x1000x328xbf16>, tensor<328x2104xbf16>) -> tensor<3x1000x2104xbf16>
  %1 = fuse.add %0, %bias : (tensor<3x1000x2104xbf16>, tensor<2104xbf16>) -> tensor<3x1000x2104xbf16>
  return %1 : tensor<3x1000x2104xbf16>
}

// Both operands transposed and batched: A is M-contiguous (64-wide panels,
// one box each), B K-contiguous, both through 3-D maps.
func.func @tma_transposed(%a: tensor<2x328x1000xbf16>, %b: tensor<2x2104x328xbf16>) -> tensor<2x1000x2104xbf16> {
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<2x328x1000xbf16>, tensor<2x2104x328xbf16>) -> tensor<2x1000x2104xbf16>
  return %0 : tensor<2x1000x2104xbf16>
}

// A constant weight: the GEMM reads it from a buffer the plan carries.
func.func @splat_weight(%a: tensor<128x256xbf16>) -> tensor<128x64xbf16> {
  %w = fuse.constant dense<0.5> : tensor<256x64xbf16>
  %y = fuse.matmul %a, %w : (tensor<128x256xbf16>, tensor<256x64xbf16>) -> tensor<128x64xbf16>
  return %y : tensor<128x64xbf16>
}

// Operands read in place through views (no copy kernels): Q and K^T split
// out of a fused QKV projection with slice + reshape + transpose (70
// tokens: ragged tiles), P @ V with V at an offset into the buffer, an
// operand whose rows are contiguous in its buffer (a batch transpose: the
// contiguous dimension flips), and f16 rows whose pitch (300) and offset
// (100) allow only 8-byte copies.
func.func @view_qk(%qkv: tensor<2x70x384xbf16>) -> tensor<2x2x70x70xbf16> {
  %q0 = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
  %q1 = fuse.reshape %q0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
  %q = fuse.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x70x2x64xbf16> -> tensor<2x2x70x64xbf16>
  %k0 = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
  %k1 = fuse.reshape %k0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
  %k = fuse.transpose %k1 permutation = [0, 2, 3, 1] : tensor<2x70x2x64xbf16> -> tensor<2x2x64x70xbf16>
  %s = fuse.matmul %q, %k : (tensor<2x2x70x64xbf16>, tensor<2x2x64x70xbf16>) -> tensor<2x2x70x70xbf16>
  return %s : tensor<2x2x70x70xbf16>
}

func.func @view_pv(%p: tensor<2x2x70x70xbf16>, %qkv: tensor<2x70x384xbf16>) -> tensor<2x2x70x64xbf16> {
  %v0 = fuse.slice %qkv offsets = [0, 0, 256] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
  %v1 = fuse.reshape %v0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
  %v = fuse.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x70x2x64xbf16> -> tensor<2x2x70x64xbf16>
  %o = fuse.matmul %p, %v : (tensor<2x2x70x70xbf16>, tensor<2x2x70x64xbf16>) -> tensor<2x2x70x64xbf16>
  %r = fuse.relu %o : tensor<2x2x70x64xbf16>
  return %r : tensor<2x2x70x64xbf16>
}

func.func @view_rows_contiguous(%x: tensor<96x3x130xbf16>, %b: tensor<96x72xbf16>) -> tensor<3x130x72xbf16> {
  %a = fuse.transpose %x permutation = [1, 2, 0] : tensor<96x3x130xbf16> -> tensor<3x130x96xbf16>
  %y = fuse.matmul %a, %b : (tensor<3x130x96xbf16>, tensor<96x72xbf16>) -> tensor<3x130x72xbf16>
  return %y : tensor<3x130x72xbf16>
}

func.func @view_f16_pitch(%x: tensor<50x300xf16>, %w: tensor<100x40xf16>) -> tensor<50x40xf16> {
  %a = fuse.slice %x offsets = [0, 100] sizes = [50, 100] strides = [1, 1] : tensor<50x300xf16> -> tensor<50x100xf16>
  %y = fuse.matmul %a, %w : (tensor<50x100xf16>, tensor<100x40xf16>) -> tensor<50x40xf16>
  return %y : tensor<50x40xf16>
}

// TMA through head-splitting views (f16, 200 tokens, 6 heads: shapes the
// tile model was not tuned on): [B, S, H, D] read as [B, H, S, D], whose
// batch dimensions do not merge (a 4-D tensor map); K also transposed; V
// N-contiguous in 64-column panels; and a K/V head shared by every query
// head (grouped-query attention: a batch dimension the map drops).
func.func @tma_heads_qk(%q: tensor<2x200x6x64xf16>, %k: tensor<2x200x6x64xf16>) -> tensor<2x6x200x200xf16> {
  %qt = fuse.transpose %q permutation = [0, 2, 1, 3] : tensor<2x200x6x64xf16> -> tensor<2x6x200x64xf16>
  %kt = fuse.transpose %k permutation = [0, 2, 3, 1] : tensor<2x200x6x64xf16> -> tensor<2x6x64x200xf16>
  %s = fuse.matmul %qt, %kt : (tensor<2x6x200x64xf16>, tensor<2x6x64x200xf16>) -> tensor<2x6x200x200xf16>
  return %s : tensor<2x6x200x200xf16>
}

func.func @tma_heads_pv(%p: tensor<2x6x200x200xf16>, %v: tensor<2x200x6x64xf16>) -> tensor<2x6x200x64xf16> {
  %vt = fuse.transpose %v permutation = [0, 2, 1, 3] : tensor<2x200x6x64xf16> -> tensor<2x6x200x64xf16>
  %o = fuse.matmul %p, %vt : (tensor<2x6x200x200xf16>, tensor<2x6x200x64xf16>) -> tensor<2x6x200x64xf16>
  return %o : tensor<2x6x200x64xf16>
}

func.func @tma_gqa(%q: tensor<2x4x100x64xbf16>, %k: tensor<2x1x100x64xbf16>) -> tensor<2x4x100x100xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<2x4x100x64xbf16>, tensor<2x1x100x64xbf16>) -> tensor<2x4x100x100xbf16>
  return %s : tensor<2x4x100x100xbf16>
}

// Two 16-bit outputs stored 16 bytes a thread: the biased projection and
// its GELU, 300 rows and 136 columns (the last column tile holds one n8
// tile of the lane quad's four: the other three are guarded off).
func.func @two_outputs_wide(%a: tensor<300x96xbf16>, %b: tensor<96x136xbf16>, %bias: tensor<136xbf16>) -> (tensor<300x136xbf16>, tensor<300x136xbf16>) {
  %0 = fuse.matmul %a, %b : (tensor<300x96xbf16>, tensor<96x136xbf16>) -> tensor<300x136xbf16>
  %1 = fuse.add %0, %bias : (tensor<300x136xbf16>, tensor<136xbf16>) -> tensor<300x136xbf16>
  %2 = fuse.gelu %1 approximate = none : tensor<300x136xbf16>
  return %1, %2 : tensor<300x136xbf16>, tensor<300x136xbf16>
}

// The merge of heads as the GEMM's store layout: P.V per head, stored at
// [B, S, H, D] and read as [B, S, H*D]; ragged rows.
func.func @store_merge_heads(%p: tensor<2x3x70x70xbf16>, %v: tensor<2x3x70x40xbf16>) -> tensor<2x70x120xbf16> {
  %o = fuse.matmul %p, %v : (tensor<2x3x70x70xbf16>, tensor<2x3x70x40xbf16>) -> tensor<2x3x70x40xbf16>
  %r = fuse.relu %o : tensor<2x3x70x40xbf16>
  %t = fuse.transpose %r permutation = [0, 2, 1, 3] : tensor<2x3x70x40xbf16> -> tensor<2x70x3x40xbf16>
  %m = fuse.reshape %t : tensor<2x70x3x40xbf16> -> tensor<2x70x120xbf16>
  return %m : tensor<2x70x120xbf16>
}

// Odd columns (stored one at a time) through a batch-major transpose.
func.func @store_odd_transposed(%a: tensor<3x37x50xf16>, %b: tensor<3x50x27xf16>) -> tensor<37x3x27xf16> {
  %o = fuse.matmul %a, %b : (tensor<3x37x50xf16>, tensor<3x50x27xf16>) -> tensor<3x37x27xf16>
  %t = fuse.transpose %o permutation = [1, 0, 2] : tensor<3x37x27xf16> -> tensor<37x3x27xf16>
  return %t : tensor<37x3x27xf16>
}

// Q, K and V out of one QKV projection with a bias, ragged rows: the GEMM
// stores each slice as an output of its own (the slice boundaries at
// columns 96 and 192 fall inside tiles of 128 and 256 columns); V is then
// split into heads by a transpose kernel reading that output.
func.func @qkv_split(%x: tensor<2x70x64xbf16>, %w: tensor<64x288xbf16>, %b: tensor<288xbf16>) -> (tensor<2x70x96xbf16>, tensor<2x70x96xbf16>, tensor<2x3x70x32xbf16>) {
  %m = fuse.matmul %x, %w : (tensor<2x70x64xbf16>, tensor<64x288xbf16>) -> tensor<2x70x288xbf16>
  %a = fuse.add %m, %b : (tensor<2x70x288xbf16>, tensor<288xbf16>) -> tensor<2x70x288xbf16>
  %q = fuse.slice %a offsets = [0, 0, 0] sizes = [2, 70, 96] strides = [1, 1, 1] : tensor<2x70x288xbf16> -> tensor<2x70x96xbf16>
  %k = fuse.slice %a offsets = [0, 0, 96] sizes = [2, 70, 96] strides = [1, 1, 1] : tensor<2x70x288xbf16> -> tensor<2x70x96xbf16>
  %v = fuse.slice %a offsets = [0, 0, 192] sizes = [2, 70, 96] strides = [1, 1, 1] : tensor<2x70x288xbf16> -> tensor<2x70x96xbf16>
  %v1 = fuse.reshape %v : tensor<2x70x96xbf16> -> tensor<2x70x3x32xbf16>
  %vt = fuse.transpose %v1 permutation = [0, 2, 1, 3] : tensor<2x70x3x32xbf16> -> tensor<2x3x70x32xbf16>
  return %q, %k, %vt : tensor<2x70x96xbf16>, tensor<2x70x96xbf16>, tensor<2x3x70x32xbf16>
}
