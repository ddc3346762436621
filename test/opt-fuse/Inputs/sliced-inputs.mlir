// A kernel that gathers 16 rows of a 1000x256 f32 table and slices a
// quarter of a 64x256 input: it reads those elements, not its inputs whole.
func.func @sliced_inputs(%table: tensor<1000x256xf32>, %i: tensor<16xi32>, %x: tensor<64x256xf32>) -> tensor<16x256xf32> {
  %g = fuse.gather %table, %i axis = 0 : (tensor<1000x256xf32>, tensor<16xi32>) -> tensor<16x256xf32>
  %s = fuse.slice %x offsets = [0, 0] sizes = [16, 256] strides = [1, 1] : tensor<64x256xf32> -> tensor<16x256xf32>
  %r = fuse.add %g, %s : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}
