// Held out (bench/heldout_kernels.py): a 64x64 bf16 add (launch-bound)
func.func @ew_tiny_bf16_add(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> (tensor<64x64xbf16>) {
  %0 = fuse.add %a, %b : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
