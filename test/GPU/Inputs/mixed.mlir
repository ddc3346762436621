// Kernels the examples do not exercise: bf16 -> f32 casts, a column vector,
// a scalar, a middle-dimension broadcast, i1 and f16 outputs, integers, and
// a row length (7) that does not split into vectors.
func.func @mixed(%x: tensor<64x8x32xbf16>, %col: tensor<64x1x1xf32>, %mid: tensor<8x1xf32>,
                 %h: tensor<5x7xf16>, %i: tensor<5x7xi32>)
    -> (tensor<64x8x32xf32>, tensor<64x8x32xi1>, tensor<5x7xf16>, tensor<5x7xi32>) {
  %s = fuse.constant dense<0.25> : tensor<f32>
  %0 = fuse.cast %x : tensor<64x8x32xbf16> to tensor<64x8x32xf32>
  %1 = fuse.mul %0, %col : (tensor<64x8x32xf32>, tensor<64x1x1xf32>) -> tensor<64x8x32xf32>
  %2 = fuse.sub %1, %mid : (tensor<64x8x32xf32>, tensor<8x1xf32>) -> tensor<64x8x32xf32>
  %3 = fuse.pow %2, %s : (tensor<64x8x32xf32>, tensor<f32>) -> tensor<64x8x32xf32>
  %4 = fuse.abs %2 : tensor<64x8x32xf32>
  %5 = fuse.compare lt, %4, %s : (tensor<64x8x32xf32>, tensor<f32>) -> tensor<64x8x32xi1>
  %6 = fuse.select %5, %4, %2 : (tensor<64x8x32xi1>, tensor<64x8x32xf32>, tensor<64x8x32xf32>) -> tensor<64x8x32xf32>
  %7 = fuse.exp %h : tensor<5x7xf16>
  %8 = fuse.rsqrt %7 : tensor<5x7xf16>
  %9 = fuse.relu %i : tensor<5x7xi32>
  %10 = fuse.mul %9, %i : (tensor<5x7xi32>, tensor<5x7xi32>) -> tensor<5x7xi32>
  return %6, %5, %8, %10 : tensor<64x8x32xf32>, tensor<64x8x32xi1>, tensor<5x7xf16>, tensor<5x7xi32>
}
