// Held out (bench/heldout_kernels.py): bf16 relu(x) by 4096x1024
func.func @gemm_bf16_relu_prologue(%x: tensor<1024x4096xbf16>, %w: tensor<4096x1024xbf16>) -> (tensor<1024x1024xbf16>) {
  %0 = fuse.relu %x : tensor<1024x4096xbf16>
  %1 = fuse.matmul %0, %w : (tensor<1024x4096xbf16>, tensor<4096x1024xbf16>) -> tensor<1024x1024xbf16>
  return %1 : tensor<1024x1024xbf16>
}
