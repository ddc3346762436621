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
