// scaled_projection.mlir at a size the CPU reference runs in well under a
// second: what --check-fusion checks the pass on.
func.func @scaled_projection_small(%x: tensor<256x512xbf16>, %w: tensor<512x384xbf16>) -> tensor<256x384xbf16> {
  %c = fuse.constant dense<0.125> : tensor<bf16>
  %xs = fuse.mul %x, %c : (tensor<256x512xbf16>, tensor<bf16>) -> tensor<256x512xbf16>
  %y = fuse.matmul %xs, %w : (tensor<256x512xbf16>, tensor<512x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
