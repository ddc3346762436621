// Matmuls large enough (2^24 multiply-adds or more) for --check's
// reference to compute them with cuBLAS's DGEMM on the GPU.

// 256^3 bf16 with a bias: exactly the threshold.
func.func @bias(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>,
                %c: tensor<256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %c : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  return %1 : tensor<256x256xbf16>
}

// f32, both operands transposed, B's batch broadcast over A's 2x3 batches,
// ragged sizes: every DGEMM argument the offload computes.
func.func @batched_transposed(%a: tensor<2x3x300x160xf32>,
                              %b: tensor<1x3x200x300xf32>) -> tensor<2x3x160x200xf32> {
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<2x3x300x160xf32>, tensor<1x3x200x300xf32>) -> tensor<2x3x160x200xf32>
  return %0 : tensor<2x3x160x200xf32>
}

// Two chained matmuls (the second reads the first through a GELU): the
// error scales' contraction of magnitudes goes to the GPU too.
func.func @chain(%x: tensor<512x256xbf16>, %w1: tensor<256x384xbf16>,
                 %w2: tensor<384x256xbf16>) -> tensor<512x256xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<512x256xbf16>, tensor<256x384xbf16>) -> tensor<512x384xbf16>
  %1 = fuse.gelu %0 approximate = tanh : tensor<512x384xbf16>
  %2 = fuse.matmul %1, %w2 : (tensor<512x384xbf16>, tensor<384x256xbf16>) -> tensor<512x256xbf16>
  return %2 : tensor<512x256xbf16>
}
