// Held out (bench/heldout_kernels.py): bf16 embedding rows gathered for 512 tokens
func.func @move_bf16_embedding(%table: tensor<32000x4096xbf16>, %i: tensor<512xi32>) -> (tensor<512x4096xbf16>) {
  %0 = fuse.gather %table, %i axis = 0 : (tensor<32000x4096xbf16>, tensor<512xi32>) -> tensor<512x4096xbf16>
  return %0 : tensor<512x4096xbf16>
}
