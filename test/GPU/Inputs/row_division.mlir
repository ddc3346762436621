// Each row of %x divided by the maximum of the same row of %d: a row
// kernel whose divisor is one per-row value, any f32 the test chooses
// (row_division.py), through the row's reciprocal (RowDivision.cpp).
func.func @divide_by_row(%x: tensor<64x1024xf32>, %d: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %m = fuse.reduce_max %d axes = [1] keepdims : tensor<64x1024xf32> -> tensor<64x1xf32>
  %q = fuse.div %x, %m : (tensor<64x1024xf32>, tensor<64x1xf32>) -> tensor<64x1024xf32>
  return %q : tensor<64x1024xf32>
}
