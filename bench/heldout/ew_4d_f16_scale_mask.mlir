// Held out (bench/heldout_kernels.py): 4-D f16 scores scaled, a broadcast mask added
func.func @ew_4d_f16_scale_mask(%x: tensor<2x12x197x197xf16>, %m: tensor<1x1x197x197xf16>) -> (tensor<2x12x197x197xf16>) {
  %c = fuse.constant dense<0.125> : tensor<f16>
  %0 = fuse.mul %x, %c : (tensor<2x12x197x197xf16>, tensor<f16>) -> tensor<2x12x197x197xf16>
  %1 = fuse.add %0, %m : (tensor<2x12x197x197xf16>, tensor<1x1x197x197xf16>) -> tensor<2x12x197x197xf16>
  return %1 : tensor<2x12x197x197xf16>
}
