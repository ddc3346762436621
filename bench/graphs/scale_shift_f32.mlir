// A per-column affine transform, x * scale + shift, on f32 16384 x 4096
// (256 MiB): two broadcast rows and one streamed tensor.
func.func @scale_shift_f32(%x: tensor<16384x4096xf32>, %scale: tensor<4096xf32>, %shift: tensor<4096xf32>) -> tensor<16384x4096xf32> {
  %0 = fuse.mul %x, %scale : (tensor<16384x4096xf32>, tensor<4096xf32>) -> tensor<16384x4096xf32>
  %1 = fuse.add %0, %shift : (tensor<16384x4096xf32>, tensor<4096xf32>) -> tensor<16384x4096xf32>
  return %1 : tensor<16384x4096xf32>
}
