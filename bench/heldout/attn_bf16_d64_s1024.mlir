// Held out (bench/heldout_kernels.py): bf16 attention, head dim 64, 1024 tokens
func.func @attn_bf16_d64_s1024(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>) -> (tensor<2x8x1024x64xbf16>) {
  %0 = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>) -> tensor<2x8x1024x64xbf16>
  return %0 : tensor<2x8x1024x64xbf16>
}
