// Two identical bf16 GEMM layers and one of another shape: --autotune
// times each distinct GEMM once.
func.func @layers(%x: tensor<256x512xbf16>, %w1: tensor<512x512xbf16>, %w2: tensor<512x512xbf16>, %w3: tensor<512x256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %x, %w1 : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16>
  %1 = fuse.relu %0 : tensor<256x512xbf16>
  %2 = fuse.matmul %1, %w2 : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16>
  %3 = fuse.relu %2 : tensor<256x512xbf16>
  %4 = fuse.matmul %3, %w3 : (tensor<256x512xbf16>, tensor<512x256xbf16>) -> tensor<256x256xbf16>
  return %4 : tensor<256x256xbf16>
}
