// Matmuls of a batched A against a weight: one GEMM of the batch's rows
// stacked (fuse::foldsBatchIntoRows) when A's rows follow one another in
// memory, batched GEMMs when a view places them elsewhere.

// A decode step: 8 sequences of one token, a fused bias (one skinny GEMM
// of 8 rows, not 8 GEMMs of one row each reading the weight).
func.func @decode_tokens(%x: tensor<8x1x1024xbf16>, %w: tensor<1024x768xbf16>, %b: tensor<768xbf16>) -> tensor<8x1x768xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<8x1x1024xbf16>, tensor<1024x768xbf16>) -> tensor<8x1x768xbf16>
  %1 = fuse.add %0, %b : (tensor<8x1x768xbf16>, tensor<768xbf16>) -> tensor<8x1x768xbf16>
  return %1 : tensor<8x1x768xbf16>
}

// Heads merged through a transpose and a reshape (a view whose rows are
// stacked), an epilogue input broadcast per sequence and a full residual:
// the epilogue indexes them by the folded row's batch and row.
func.func @merged_heads(%p: tensor<6x8x1x64xbf16>, %w: tensor<512x320xbf16>, %s: tensor<6x1x1xbf16>, %r: tensor<6x1x320xbf16>) -> tensor<6x1x320xbf16> {
  %0 = fuse.transpose %p permutation = [0, 2, 1, 3] : tensor<6x8x1x64xbf16> -> tensor<6x1x8x64xbf16>
  %1 = fuse.reshape %0 : tensor<6x1x8x64xbf16> -> tensor<6x1x512xbf16>
  %2 = fuse.matmul %1, %w : (tensor<6x1x512xbf16>, tensor<512x320xbf16>) -> tensor<6x1x320xbf16>
  %3 = fuse.mul %2, %s : (tensor<6x1x320xbf16>, tensor<6x1x1xbf16>) -> tensor<6x1x320xbf16>
  %4 = fuse.add %3, %r : (tensor<6x1x320xbf16>, tensor<6x1x320xbf16>) -> tensor<6x1x320xbf16>
  return %4 : tensor<6x1x320xbf16>
}

// Ragged rows per batch element (3 x 37) on 4-D, f16, over wgmma or
// mma.sync tiles that straddle batch elements.
func.func @ragged_4d(%x: tensor<2x3x37x200xf16>, %w: tensor<1x1x200x136xf16>, %b: tensor<136xf16>) -> tensor<2x3x37x136xf16> {
  %0 = fuse.matmul %x, %w : (tensor<2x3x37x200xf16>, tensor<1x1x200x136xf16>) -> tensor<2x3x37x136xf16>
  %1 = fuse.add %0, %b : (tensor<2x3x37x136xf16>, tensor<136xf16>) -> tensor<2x3x37x136xf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<2x3x37x136xf16>
  return %2 : tensor<2x3x37x136xf16>
}

// A transpose that leaves each batch element's rows 288 elements apart and
// the batch 96 apart: not stacked, so three GEMMs.
func.func @unstacked_view(%x: tensor<130x3x96xbf16>, %w: tensor<96x72xbf16>) -> tensor<3x130x72xbf16> {
  %0 = fuse.transpose %x permutation = [1, 0, 2] : tensor<130x3x96xbf16> -> tensor<3x130x96xbf16>
  %1 = fuse.matmul %0, %w : (tensor<3x130x96xbf16>, tensor<96x72xbf16>) -> tensor<3x130x72xbf16>
  return %1 : tensor<3x130x72xbf16>
}
