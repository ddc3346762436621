// fuse.attention on the GPU (test/GPU/attention.test), through its
// decomposition, against the f64 reference of the op itself.

// Grouped-query (8 query heads on 2), causal, f32, a sequence that is not a
// multiple of any tile.
func.func @gqa_causal_f32(%q: tensor<2x8x77x64xf32>, %k: tensor<2x2x77x64xf32>, %v: tensor<2x2x77x64xf32>) -> tensor<2x8x77x64xf32> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<2x8x77x64xf32>, tensor<2x2x77x64xf32>, tensor<2x2x77x64xf32>) -> tensor<2x8x77x64xf32>
  return %o : tensor<2x8x77x64xf32>
}

// bf16, head dim 128, 200 queries on 300 keys, an additive mask broadcast
// over heads.
func.func @masked_bf16_d128(%q: tensor<1x4x200x128xbf16>, %k: tensor<1x4x300x128xbf16>, %v: tensor<1x4x300x128xbf16>, %m: tensor<1x1x200x300xbf16>) -> tensor<1x4x200x128xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 8.838835e-02 : (tensor<1x4x200x128xbf16>, tensor<1x4x300x128xbf16>, tensor<1x4x300x128xbf16>, tensor<1x1x200x300xbf16>) -> tensor<1x4x200x128xbf16>
  return %o : tensor<1x4x200x128xbf16>
}

// f16, causal with more queries than keys: queries past the last key see
// every key.
func.func @causal_f16(%q: tensor<1x2x96x64xf16>, %k: tensor<1x2x64x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x96x64xf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<1x2x96x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>) -> tensor<1x2x96x64xf16>
  return %o : tensor<1x2x96x64xf16>
}

// Rows whose keys are all hidden give zeros: a constant mask of -inf over
// the first 16 query rows, 0 elsewhere.
func.func @hidden_rows_bf16(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %rows = fuse.constant dense<[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [20], [21], [22], [23], [24], [25], [26], [27], [28], [29], [30], [31], [32], [33], [34], [35], [36], [37], [38], [39], [40], [41], [42], [43], [44], [45], [46], [47], [48], [49], [50], [51], [52], [53], [54], [55], [56], [57], [58], [59], [60], [61], [62], [63]]> : tensor<64x1xi32>
  %sixteen = fuse.constant dense<16> : tensor<i32>
  %hide = fuse.compare lt, %rows, %sixteen : (tensor<64x1xi32>, tensor<i32>) -> tensor<64x1xi1>
  %ninf = fuse.constant dense<0xFF80> : tensor<bf16>
  %zero = fuse.constant dense<0.0> : tensor<bf16>
  %m = fuse.select %hide, %ninf, %zero : (tensor<64x1xi1>, tensor<bf16>, tensor<bf16>) -> tensor<64x1xbf16>
  %o = fuse.attention %q, %k, %v mask %m scale = 1.250000e-01 : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<64x1xbf16>) -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// The fused attention kernel reading q, k and v through the head-splitting
// views of one QKV projection ([B, S, 3 H D] sliced, reshaped and
// transposed) and storing through the head merge with a residual add.
func.func @views_bf16(%qkv: tensor<2x100x768xbf16>, %x: tensor<2x100x256xbf16>) -> tensor<2x100x256xbf16> {
  %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 100, 256] strides = [1, 1, 1] : tensor<2x100x768xbf16> -> tensor<2x100x256xbf16>
  %ks = fuse.slice %qkv offsets = [0, 0, 256] sizes = [2, 100, 256] strides = [1, 1, 1] : tensor<2x100x768xbf16> -> tensor<2x100x256xbf16>
  %vs = fuse.slice %qkv offsets = [0, 0, 512] sizes = [2, 100, 256] strides = [1, 1, 1] : tensor<2x100x768xbf16> -> tensor<2x100x256xbf16>
  %qr = fuse.reshape %qs : tensor<2x100x256xbf16> -> tensor<2x100x4x64xbf16>
  %kr = fuse.reshape %ks : tensor<2x100x256xbf16> -> tensor<2x100x4x64xbf16>
  %vr = fuse.reshape %vs : tensor<2x100x256xbf16> -> tensor<2x100x4x64xbf16>
  %q = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<2x100x4x64xbf16> -> tensor<2x4x100x64xbf16>
  %k = fuse.transpose %kr permutation = [0, 2, 1, 3] : tensor<2x100x4x64xbf16> -> tensor<2x4x100x64xbf16>
  %v = fuse.transpose %vr permutation = [0, 2, 1, 3] : tensor<2x100x4x64xbf16> -> tensor<2x4x100x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>, tensor<2x4x100x64xbf16>) -> tensor<2x4x100x64xbf16>
  %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x4x100x64xbf16> -> tensor<2x100x4x64xbf16>
  %om = fuse.reshape %ot : tensor<2x100x4x64xbf16> -> tensor<2x100x256xbf16>
  %y = fuse.add %om, %x : (tensor<2x100x256xbf16>, tensor<2x100x256xbf16>) -> tensor<2x100x256xbf16>
  return %y : tensor<2x100x256xbf16>
}

// Grouped-query, causal, head dim 128, bf16, 333 queries and keys.
func.func @gqa_causal_bf16_d128(%q: tensor<1x8x333x128xbf16>, %k: tensor<1x2x333x128xbf16>, %v: tensor<1x2x333x128xbf16>) -> tensor<1x8x333x128xbf16> {
  %o = fuse.attention %q, %k, %v scale = 8.838835e-02 causal : (tensor<1x8x333x128xbf16>, tensor<1x2x333x128xbf16>, tensor<1x2x333x128xbf16>) -> tensor<1x8x333x128xbf16>
  return %o : tensor<1x8x333x128xbf16>
}

// Decode: one query per sequence against 1000 keys, a per-sequence
// padding mask broadcast over heads and the query, f16.
func.func @decode_f16(%q: tensor<4x8x1x64xf16>, %k: tensor<4x8x1000x64xf16>, %v: tensor<4x8x1000x64xf16>, %m: tensor<4x1x1x1000xf16>) -> tensor<4x8x1x64xf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 1.250000e-01 : (tensor<4x8x1x64xf16>, tensor<4x8x1000x64xf16>, tensor<4x8x1000x64xf16>, tensor<4x1x1x1000xf16>) -> tensor<4x8x1x64xf16>
  return %o : tensor<4x8x1x64xf16>
}

// Head dims 32 (q, k) and 48 (v): multiples of 16 other than 64 and 128.
func.func @narrow_heads_bf16(%q: tensor<1x2x70x32xbf16>, %k: tensor<1x2x90x32xbf16>, %v: tensor<1x2x90x48xbf16>) -> tensor<1x2x70x48xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.767767e-01 : (tensor<1x2x70x32xbf16>, tensor<1x2x90x32xbf16>, tensor<1x2x90x48xbf16>) -> tensor<1x2x70x48xbf16>
  return %o : tensor<1x2x70x48xbf16>
}

// Masks written as selects (masked_fill, ONNX Where), recognised as one
// attention: a constant causal triangle with f16's lowest value as the
// fill (the op's causal flag), and a constant padding pattern with -inf
// (an additive mask of 0 and -inf).
func.func @select_causal_f16(%q: tensor<1x2x8x64xf16>, %k: tensor<1x2x8x64xf16>, %v: tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>) -> tensor<1x2x8x8xf16>
  %c = fuse.constant dense<1.250000e-01> : tensor<f16>
  %t = fuse.mul %s, %c : (tensor<1x2x8x8xf16>, tensor<f16>) -> tensor<1x2x8x8xf16>
  %upper = fuse.constant dense<[[false, true, true, true, true, true, true, true], [false, false, true, true, true, true, true, true], [false, false, false, true, true, true, true, true], [false, false, false, false, true, true, true, true], [false, false, false, false, false, true, true, true], [false, false, false, false, false, false, true, true], [false, false, false, false, false, false, false, true], [false, false, false, false, false, false, false, false]]> : tensor<8x8xi1>
  %fill = fuse.constant dense<-6.550400e+04> : tensor<f16>
  %u = fuse.select %upper, %fill, %t : (tensor<8x8xi1>, tensor<f16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %p = fuse.softmax %u axis = 3 : tensor<1x2x8x8xf16>
  %o = fuse.matmul %p, %v : (tensor<1x2x8x8xf16>, tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16>
  return %o : tensor<1x2x8x64xf16>
}

func.func @select_padding_bf16(%q: tensor<2x2x8x64xbf16>, %k: tensor<2x2x8x64xbf16>, %v: tensor<2x2x8x64xbf16>) -> tensor<2x2x8x64xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<2x2x8x64xbf16>, tensor<2x2x8x64xbf16>) -> tensor<2x2x8x8xbf16>
  %c = fuse.constant dense<1.250000e-01> : tensor<bf16>
  %t = fuse.mul %s, %c : (tensor<2x2x8x8xbf16>, tensor<bf16>) -> tensor<2x2x8x8xbf16>
  %keep = fuse.constant dense<[[[[true, true, true, true, true, true, false, false]]], [[[true, true, true, false, false, false, false, false]]]]> : tensor<2x1x1x8xi1>
  %ninf = fuse.constant dense<0xFF80> : tensor<bf16>
  %u = fuse.select %keep, %t, %ninf : (tensor<2x1x1x8xi1>, tensor<2x2x8x8xbf16>, tensor<bf16>) -> tensor<2x2x8x8xbf16>
  %p = fuse.softmax %u axis = 3 : tensor<2x2x8x8xbf16>
  %o = fuse.matmul %p, %v : (tensor<2x2x8x8xbf16>, tensor<2x2x8x64xbf16>) -> tensor<2x2x8x64xbf16>
  return %o : tensor<2x2x8x64xbf16>
}

// Soft-capped scores (c tanh(s / c)): with scale 1 and c = 5 most scores
// of the seeded inputs are capped. Written as the op, causal, ragged; and
// as Gemma 2 writes it (recognised), f16.
func.func @softcap_causal_bf16_d128(%q: tensor<1x4x200x128xbf16>, %k: tensor<1x4x200x128xbf16>, %v: tensor<1x4x200x128xbf16>) -> tensor<1x4x200x128xbf16> {
  %o = fuse.attention %q, %k, %v scale = 1.000000e+00 softcap = 5.000000e+00 causal : (tensor<1x4x200x128xbf16>, tensor<1x4x200x128xbf16>, tensor<1x4x200x128xbf16>) -> tensor<1x4x200x128xbf16>
  return %o : tensor<1x4x200x128xbf16>
}

func.func @softcap_chain_f16(%q: tensor<2x2x96x64xf16>, %k: tensor<2x2x96x64xf16>, %v: tensor<2x2x96x64xf16>) -> tensor<2x2x96x64xf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<2x2x96x64xf16>, tensor<2x2x96x64xf16>) -> tensor<2x2x96x96xf16>
  %c = fuse.constant dense<5.000000e-01> : tensor<f16>
  %t = fuse.mul %s, %c : (tensor<2x2x96x96xf16>, tensor<f16>) -> tensor<2x2x96x96xf16>
  %cap = fuse.constant dense<3.000000e+00> : tensor<f16>
  %d = fuse.div %t, %cap : (tensor<2x2x96x96xf16>, tensor<f16>) -> tensor<2x2x96x96xf16>
  %h = fuse.tanh %d : tensor<2x2x96x96xf16>
  %g = fuse.mul %h, %cap : (tensor<2x2x96x96xf16>, tensor<f16>) -> tensor<2x2x96x96xf16>
  %p = fuse.softmax %g axis = 3 : tensor<2x2x96x96xf16>
  %o = fuse.matmul %p, %v : (tensor<2x2x96x96xf16>, tensor<2x2x96x64xf16>) -> tensor<2x2x96x64xf16>
  return %o : tensor<2x2x96x64xf16>
}

// Head dim 64 on three consumer warpgroups (tma:192x128, auto for long
// head-dim-64 sequences): query tiles of 192 rows over 500 (the last one
// ragged), grouped-query heads, causal with an additive mask broadcast
// over heads.
func.func @causal_masked_gqa_bf16_d64(%q: tensor<2x4x500x64xbf16>, %k: tensor<2x2x500x64xbf16>, %v: tensor<2x2x500x64xbf16>, %m: tensor<2x1x500x500xbf16>) -> tensor<2x4x500x64xbf16> {
  %o = fuse.attention %q, %k, %v mask %m scale = 1.250000e-01 causal : (tensor<2x4x500x64xbf16>, tensor<2x2x500x64xbf16>, tensor<2x2x500x64xbf16>, tensor<2x1x500x500xbf16>) -> tensor<2x4x500x64xbf16>
  return %o : tensor<2x4x500x64xbf16>
}

// f16, head dim 64, 1000 queries on 1000 keys (neither a whole number of
// tiles), no mask.
func.func @long_f16_d64(%q: tensor<1x3x1000x64xf16>, %k: tensor<1x3x1000x64xf16>, %v: tensor<1x3x1000x64xf16>) -> tensor<1x3x1000x64xf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x3x1000x64xf16>, tensor<1x3x1000x64xf16>, tensor<1x3x1000x64xf16>) -> tensor<1x3x1000x64xf16>
  return %o : tensor<1x3x1000x64xf16>
}
