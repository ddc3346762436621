// Split-K GEMMs (test/GPU/split-k.test): few output tiles, long K.

// GPT-2's MLP down-projection at 128 tokens, with its bias and residual:
// 6 tiles of 128x128 for 132 SMs.
func.func @down_proj(%h: tensor<128x3072xf32>, %w: tensor<3072x768xf32>, %b: tensor<768xf32>, %r: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = fuse.matmul %h, %w : (tensor<128x3072xf32>, tensor<3072x768xf32>) -> tensor<128x768xf32>
  %1 = fuse.add %0, %b : (tensor<128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
  %2 = fuse.add %1, %r : (tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<128x768xf32>
  return %2 : tensor<128x768xf32>
}

// Ragged everything: K = 1000 is not a multiple of the 32-wide slice, and
// a GELU epilogue.
func.func @ragged_gelu(%a: tensor<100x1000xf32>, %b: tensor<1000x130xf32>) -> tensor<100x130xf32> {
  %0 = fuse.matmul %a, %b : (tensor<100x1000xf32>, tensor<1000x130xf32>) -> tensor<100x130xf32>
  %1 = fuse.gelu %0 approximate = none : tensor<100x130xf32>
  return %1 : tensor<100x130xf32>
}

// Transposed B (a Gemm with transB) and a batch: the splits of different
// batch elements' tiles.
func.func @batched_transposed(%a: tensor<3x64x2048xf32>, %b: tensor<3x96x2048xf32>) -> tensor<3x64x96xf32> {
  %bt = fuse.transpose %b permutation = [0, 2, 1] : tensor<3x96x2048xf32> -> tensor<3x2048x96xf32>
  %0 = fuse.matmul %a, %bt : (tensor<3x64x2048xf32>, tensor<3x2048x96xf32>) -> tensor<3x64x96xf32>
  return %0 : tensor<3x64x96xf32>
}

// ResNet-18's last 3x3 convolution at batch 1: a 7x7 image, K = 4608.
func.func @conv_7x7(%x: tensor<1x7x7x512xf32>, %w: tensor<512x3x3x512xf32>, %b: tensor<512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<1x7x7x512xf32>, tensor<512x3x3x512xf32>) -> tensor<1x7x7x512xf32>
  %1 = fuse.add %0, %b : (tensor<1x7x7x512xf32>, tensor<512xf32>) -> tensor<1x7x7x512xf32>
  %2 = fuse.relu %1 : tensor<1x7x7x512xf32>
  return %2 : tensor<1x7x7x512xf32>
}

// bf16 on the mma.sync kernel, and an output the matmul's own result.
func.func @bf16_two_outputs(%a: tensor<64x4096xbf16>, %b: tensor<4096x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x256xf32>) {
  %0 = fuse.matmul %a, %b : (tensor<64x4096xbf16>, tensor<4096x256xbf16>) -> tensor<64x256xbf16>
  %1 = fuse.silu %0 : tensor<64x256xbf16>
  %2 = fuse.cast %1 : tensor<64x256xbf16> to tensor<64x256xf32>
  return %0, %2 : tensor<64x256xbf16>, tensor<64x256xf32>
}

// Two split-K GEMMs in a row share the runtime's counters: the second
// counts right only if the first left them zero.
func.func @two_splits(%x: tensor<64x2048xf32>, %w1: tensor<2048x256xf32>, %w2: tensor<256x2048xf32>, %w3: tensor<2048x128xf32>) -> tensor<64x128xf32> {
  %0 = fuse.matmul %x, %w1 : (tensor<64x2048xf32>, tensor<2048x256xf32>) -> tensor<64x256xf32>
  %1 = fuse.relu %0 : tensor<64x256xf32>
  %2 = fuse.matmul %1, %w2 : (tensor<64x256xf32>, tensor<256x2048xf32>) -> tensor<64x2048xf32>
  %3 = fuse.matmul %2, %w3 : (tensor<64x2048xf32>, tensor<2048x128xf32>) -> tensor<64x128xf32>
  return %3 : tensor<64x128xf32>
}

// bf16 on wgmma, forced split: 48 tiles of 128x128, ragged N, a bias and GELU; a relu
// prologue; a 3x3 conv of a 14x14 image (implicit GEMM through cp.async).
func.func @wgmma_mid(%a: tensor<768x2048xbf16>, %b: tensor<2048x1000xbf16>, %bias: tensor<1000xbf16>) -> tensor<768x1000xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<768x2048xbf16>, tensor<2048x1000xbf16>) -> tensor<768x1000xbf16>
  %1 = fuse.add %0, %bias : (tensor<768x1000xbf16>, tensor<1000xbf16>) -> tensor<768x1000xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<768x1000xbf16>
  return %2 : tensor<768x1000xbf16>
}

func.func @wgmma_relu_prologue(%x: tensor<512x1024xbf16>, %w: tensor<1024x512xbf16>) -> tensor<512x512xbf16> {
  %0 = fuse.relu %x : tensor<512x1024xbf16>
  %1 = fuse.matmul %0, %w : (tensor<512x1024xbf16>, tensor<1024x512xbf16>) -> tensor<512x512xbf16>
  return %1 : tensor<512x512xbf16>
}

func.func @wgmma_conv(%x: tensor<2x14x14x256xbf16>, %w: tensor<256x3x3x256xbf16>) -> tensor<2x14x14x256xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<2x14x14x256xbf16>, tensor<256x3x3x256xbf16>) -> tensor<2x14x14x256xbf16>
  return %0 : tensor<2x14x14x256xbf16>
}
