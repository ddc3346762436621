// Loop kernels over shapes whose rows do not split into vectors: the flat
// index is walked a full vector at a time, the last elements by one more
// thread, and broadcast inputs whose rows end inside a vector lane by lane:
// from the vector's first index and the next row's (rows at least a vector
// long), or each lane's own index (shorter rows).

// f32, 3,069 elements (767 vectors of 4 and a tail of 1), a column bias.
func.func @bias_f32(%x: tensor<3x1023xf32>, %b: tensor<1023xf32>) -> tensor<3x1023xf32> {
  %0 = fuse.add %x, %b : (tensor<3x1023xf32>, tensor<1023xf32>) -> tensor<3x1023xf32>
  %1 = fuse.exp %0 : tensor<3x1023xf32>
  return %1 : tensor<3x1023xf32>
}

// bf16 (vectors of 8), a per-row scale and a per-column bias, 5,005
// elements (625 vectors and a tail of 5).
func.func @row_and_column_bf16(%x: tensor<5x1001xbf16>, %r: tensor<5x1xbf16>, %c: tensor<1001xbf16>) -> tensor<5x1001xbf16> {
  %0 = fuse.mul %x, %r : (tensor<5x1001xbf16>, tensor<5x1xbf16>) -> tensor<5x1001xbf16>
  %1 = fuse.add %0, %c : (tensor<5x1001xbf16>, tensor<1001xbf16>) -> tensor<5x1001xbf16>
  return %1 : tensor<5x1001xbf16>
}

// The GELU-erf times sigmoid chain on a ragged f32 shape.
func.func @gelu_erf_sigmoid_f32(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<4097x1023xf32>
  %1 = fuse.sigmoid %x : tensor<4097x1023xf32>
  %2 = fuse.mul %0, %1 : (tensor<4097x1023xf32>, tensor<4097x1023xf32>) -> tensor<4097x1023xf32>
  return %2 : tensor<4097x1023xf32>
}

// 4-D with a mask broadcast over heads and a ragged last axis; two outputs.
func.func @masked_4d_f16(%x: tensor<2x3x5x77xf16>, %m: tensor<2x1x5x77xf16>) -> (tensor<2x3x5x77xf16>, tensor<2x3x5x77xf16>) {
  %0 = fuse.add %x, %m : (tensor<2x3x5x77xf16>, tensor<2x1x5x77xf16>) -> tensor<2x3x5x77xf16>
  %1 = fuse.tanh %0 : tensor<2x3x5x77xf16>
  return %0, %1 : tensor<2x3x5x77xf16>, tensor<2x3x5x77xf16>
}

// Fewer elements than a vector: one thread, the tail alone.
func.func @tiny_f32(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = fuse.sub %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// A weight read along a middle dimension (its last one broadcast): the
// lanes past a row's end read the next row's element, 7 x 5 x 9 f16.
func.func @middle_f16(%x: tensor<7x5x9xf16>, %w: tensor<1x5x1xf16>) -> tensor<7x5x9xf16> {
  %0 = fuse.mul %x, %w : (tensor<7x5x9xf16>, tensor<1x5x1xf16>) -> tensor<7x5x9xf16>
  return %0 : tensor<7x5x9xf16>
}

// Rows of 3, shorter than a vector of 4 f32: each lane's own index.
func.func @short_rows_f32(%x: tensor<1001x3xf32>, %w: tensor<3xf32>) -> tensor<1001x3xf32> {
  %0 = fuse.mul %x, %w : (tensor<1001x3xf32>, tensor<3xf32>) -> tensor<1001x3xf32>
  return %0 : tensor<1001x3xf32>
}

// Large enough for two vectors a thread (1.58M vectors of 8 bf16), rows of
// 257: the unrolled, clamped vectors read the bias across rows too.
func.func @bias_gelu_4d_bf16(%x: tensor<8x12x513x257xbf16>, %b: tensor<257xbf16>) -> tensor<8x12x513x257xbf16> {
  %0 = fuse.add %x, %b : (tensor<8x12x513x257xbf16>, tensor<257xbf16>) -> tensor<8x12x513x257xbf16>
  %1 = fuse.gelu %0 approximate = none : tensor<8x12x513x257xbf16>
  return %1 : tensor<8x12x513x257xbf16>
}
