// sin and cos: a rotary embedding's tables computed in the kernel from
// positions and frequencies (f32, then rounded to bf16 with the rotation),
// and arguments over [-2^12, 2^12] in f32.
func.func @rope_tables(%p: tensor<256x1xf32>, %f: tensor<64xf32>, %x: tensor<256x64xbf16>) -> tensor<256x64xbf16> {
  %a = fuse.mul %p, %f : (tensor<256x1xf32>, tensor<64xf32>) -> tensor<256x64xf32>
  %c = fuse.cos %a : tensor<256x64xf32>
  %s = fuse.sin %a : tensor<256x64xf32>
  %xf = fuse.cast %x : tensor<256x64xbf16> to tensor<256x64xf32>
  %t = fuse.mul %xf, %c : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
  %u = fuse.add %t, %s : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
  %y = fuse.cast %u : tensor<256x64xf32> to tensor<256x64xbf16>
  return %y : tensor<256x64xbf16>
}

func.func @wide_f32(%x: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>) {
  %k = fuse.constant dense<2048.0> : tensor<f32>
  %a = fuse.mul %x, %k : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %s = fuse.sin %a : tensor<1024x1024xf32>
  %c = fuse.cos %a : tensor<1024x1024xf32>
  return %s, %c : tensor<1024x1024xf32>, tensor<1024x1024xf32>
}
