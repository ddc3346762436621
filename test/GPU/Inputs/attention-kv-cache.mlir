// Attention over a KV cache joined with a step's new rows by a concat along
// the sequence (test/GPU/attention-kv-cache.test): the kernel reads the
// cache and the new rows where they lie.

// A decode step (Llama-like): 1024 cached keys (8 whole tiles of 128) and
// the new key and value through the head split of a projection, 8 heads,
// written as the matmuls and softmax a frontend emits.
func.func @decode_bf16_d128(%q: tensor<2x1x1024xbf16>, %kv: tensor<2x1x2048xbf16>, %k_cache: tensor<2x8x1024x128xbf16>, %v_cache: tensor<2x8x1024x128xbf16>) -> tensor<2x1x1024xbf16> {
  %qr = fuse.reshape %q : tensor<2x1x1024xbf16> -> tensor<2x1x8x128xbf16>
  %qt = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<2x1x8x128xbf16> -> tensor<2x8x1x128xbf16>
  %ks = fuse.slice %kv offsets = [0, 0, 0] sizes = [2, 1, 1024] strides = [1, 1, 1] : tensor<2x1x2048xbf16> -> tensor<2x1x1024xbf16>
  %vs = fuse.slice %kv offsets = [0, 0, 1024] sizes = [2, 1, 1024] strides = [1, 1, 1] : tensor<2x1x2048xbf16> -> tensor<2x1x1024xbf16>
  %kr = fuse.reshape %ks : tensor<2x1x1024xbf16> -> tensor<2x1x8x128xbf16>
  %vr = fuse.reshape %vs : tensor<2x1x1024xbf16> -> tensor<2x1x8x128xbf16>
  %kn = fuse.transpose %kr permutation = [0, 2, 1, 3] : tensor<2x1x8x128xbf16> -> tensor<2x8x1x128xbf16>
  %vn = fuse.transpose %vr permutation = [0, 2, 1, 3] : tensor<2x1x8x128xbf16> -> tensor<2x8x1x128xbf16>
  %k = fuse.concat %k_cache, %kn axis = 2 : (tensor<2x8x1024x128xbf16>, tensor<2x8x1x128xbf16>) -> tensor<2x8x1025x128xbf16>
  %v = fuse.concat %v_cache, %vn axis = 2 : (tensor<2x8x1024x128xbf16>, tensor<2x8x1x128xbf16>) -> tensor<2x8x1025x128xbf16>
  %kt = fuse.transpose %k permutation = [0, 1, 3, 2] : tensor<2x8x1025x128xbf16> -> tensor<2x8x128x1025xbf16>
  %s = fuse.matmul %qt, %kt : (tensor<2x8x1x128xbf16>, tensor<2x8x128x1025xbf16>) -> tensor<2x8x1x1025xbf16>
  %c = fuse.constant dense<0.08838834764831843> : tensor<bf16>
  %ss = fuse.mul %s, %c : (tensor<2x8x1x1025xbf16>, tensor<bf16>) -> tensor<2x8x1x1025xbf16>
  %p = fuse.softmax %ss axis = 3 : tensor<2x8x1x1025xbf16>
  %o = fuse.matmul %p, %v : (tensor<2x8x1x1025xbf16>, tensor<2x8x1025x128xbf16>) -> tensor<2x8x1x128xbf16>
  %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x8x1x128xbf16> -> tensor<2x1x8x128xbf16>
  %om = fuse.reshape %ot : tensor<2x1x8x128xbf16> -> tensor<2x1x1024xbf16>
  return %om : tensor<2x1x1024xbf16>
}

// A chunk of 5 new queries against a ragged cache of 1000 keys (no whole
// tiles: the TMA-fed kernel cannot take it) and three pieces, f16, head
// dim 64, grouped-query (4 query heads on 2 KV heads), written as
// the op.
func.func @chunk_f16_d64(%q: tensor<1x4x5x64xf16>, %k_cache: tensor<1x2x1000x64xf16>, %k_new: tensor<1x2x5x64xf16>, %k_pad: tensor<1x2x3x64xf16>, %v_cache: tensor<1x2x1000x64xf16>, %v_new: tensor<1x2x5x64xf16>, %v_pad: tensor<1x2x3x64xf16>) -> tensor<1x4x5x64xf16> {
  %k = fuse.concat %k_cache, %k_pad, %k_new axis = 2 : (tensor<1x2x1000x64xf16>, tensor<1x2x3x64xf16>, tensor<1x2x5x64xf16>) -> tensor<1x2x1008x64xf16>
  %v = fuse.concat %v_cache, %v_pad, %v_new axis = 2 : (tensor<1x2x1000x64xf16>, tensor<1x2x3x64xf16>, tensor<1x2x5x64xf16>) -> tensor<1x2x1008x64xf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x4x5x64xf16>, tensor<1x2x1008x64xf16>, tensor<1x2x1008x64xf16>) -> tensor<1x4x5x64xf16>
  return %o : tensor<1x4x5x64xf16>
}

// A chunk of 16 queries, causal and with an additive mask, against 300
// keys: under the causal mask every query sees the first key tile only,
// so most splits of the keys (auto, or forced) see no key at all and
// must weigh nothing when the splits are combined.
func.func @chunk_causal_bf16_d64(%q: tensor<1x4x16x64xbf16>, %k: tensor<1x4x300x64xbf16>, %v: tensor<1x4x300x64xbf16>, %m: tensor<1x1x16x300xbf16>) -> tensor<1x4x16x64xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 1.250000e-01 causal : (tensor<1x4x16x64xbf16>, tensor<1x4x300x64xbf16>, tensor<1x4x300x64xbf16>, tensor<1x1x16x300xbf16>) -> tensor<1x4x16x64xbf16>
  return %o : tensor<1x4x16x64xbf16>
}
