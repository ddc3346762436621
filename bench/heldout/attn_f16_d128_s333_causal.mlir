// Held out (bench/heldout_kernels.py): f16 causal attention, head dim 128, 333 tokens
func.func @attn_f16_d128_s333_causal(%q: tensor<1x4x333x128xf16>, %k: tensor<1x4x333x128xf16>, %v: tensor<1x4x333x128xf16>) -> (tensor<1x4x333x128xf16>) {
  %0 = fuse.attention %q, %k, %v scale = 8.838835e-02 causal : (tensor<1x4x333x128xf16>, tensor<1x4x333x128xf16>, tensor<1x4x333x128xf16>) -> tensor<1x4x333x128xf16>
  return %0 : tensor<1x4x333x128xf16>
}
