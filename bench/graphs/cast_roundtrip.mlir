// bf16 in, f32 arithmetic, bf16 out (4096 x 8192): casts cost no FLOPs and
// only the bf16 tensors move.
func.func @cast_roundtrip(%x: tensor<4096x8192xbf16>, %s: tensor<f32>) -> tensor<4096x8192xbf16> {
  %0 = fuse.cast %x : tensor<4096x8192xbf16> to tensor<4096x8192xf32>
  %1 = fuse.mul %0, %s : (tensor<4096x8192xf32>, tensor<f32>) -> tensor<4096x8192xf32>
  %2 = fuse.tanh %1 : tensor<4096x8192xf32>
  %3 = fuse.cast %2 : tensor<4096x8192xf32> to tensor<4096x8192xbf16>
  return %3 : tensor<4096x8192xbf16>
}
