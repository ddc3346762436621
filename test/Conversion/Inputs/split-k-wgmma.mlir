// bf16 GEMMs whose wgmma tiles leave SMs idle (convert-fuse-to-gpu-split-k).
func.func @mid(%a: tensor<768x2048xbf16>, %b: tensor<2048x1024xbf16>, %bias: tensor<1024xbf16>) -> tensor<768x1024xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<768x2048xbf16>, tensor<2048x1024xbf16>) -> tensor<768x1024xbf16>
  %1 = fuse.add %0, %bias : (tensor<768x1024xbf16>, tensor<1024xbf16>) -> tensor<768x1024xbf16>
  return %1 : tensor<768x1024xbf16>
}
