// Skinny GEMMs (decode steps): at most 64 rows against a weight, which the
// tile model gives one mma.sync tile row with K split across the SMs.

// One token, a bias and a GELU in the epilogue.
func.func @one_token(%x: tensor<1x1024xbf16>, %w: tensor<1024x2048xbf16>, %b: tensor<2048xbf16>) -> tensor<1x2048xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<1x1024xbf16>, tensor<1024x2048xbf16>) -> tensor<1x2048xbf16>
  %1 = fuse.add %0, %b : (tensor<1x2048xbf16>, tensor<2048xbf16>) -> tensor<1x2048xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<1x2048xbf16>
  return %2 : tensor<1x2048xbf16>
}

// Ragged everywhere: 3 rows, K and N not multiples of a slice or a tile.
func.func @ragged(%x: tensor<3x1000xbf16>, %w: tensor<1000x1500xbf16>) -> tensor<3x1500xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<3x1000xbf16>, tensor<1000x1500xbf16>) -> tensor<3x1500xbf16>
  return %0 : tensor<3x1500xbf16>
}

// f16, 40 rows (three m16 tiles of a 48-row tile), a residual added.
func.func @rows40_f16(%x: tensor<40x2048xf16>, %w: tensor<2048x1024xf16>, %r: tensor<40x1024xf16>) -> tensor<40x1024xf16> {
  %0 = fuse.matmul %x, %w : (tensor<40x2048xf16>, tensor<2048x1024xf16>) -> tensor<40x1024xf16>
  %1 = fuse.add %0, %r : (tensor<40x1024xf16>, tensor<40x1024xf16>) -> tensor<40x1024xf16>
  return %1 : tensor<40x1024xf16>
}

// A [2, 4, 512] activation: batch dimensions folded into M.
func.func @batched_rows(%x: tensor<2x4x512xbf16>, %w: tensor<512x768xbf16>) -> tensor<2x4x768xbf16> {
  %0 = fuse.matmul %x, %w : (tensor<2x4x512xbf16>, tensor<512x768xbf16>) -> tensor<2x4x768xbf16>
  return %0 : tensor<2x4x768xbf16>
}

// Two outputs: the projection and its SiLU.
func.func @two_outputs(%x: tensor<8x1024xbf16>, %w: tensor<1024x1024xbf16>) -> (tensor<8x1024xbf16>, tensor<8x1024xbf16>) {
  %0 = fuse.matmul %x, %w : (tensor<8x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<8x1024xbf16>
  %1 = fuse.silu %0 : tensor<8x1024xbf16>
  return %0, %1 : tensor<8x1024xbf16>, tensor<8x1024xbf16>
}
