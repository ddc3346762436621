// tanh and tanh-GELU with bf16 results run on the SM's tanh.approx.f32;
// the inputs (uniform in [-1, 1]) are scaled to [-8, 8] so that the
// arguments cover tanh's whole curve, its saturation included. The f16
// and f32 results keep libdevice's tanh, as a control.
func.func @wide_tanh(%x: tensor<1048576xbf16>, %h: tensor<1048576xf16>, %f: tensor<1048576xf32>) -> (tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xf16>, tensor<1048576xf32>) {
  %k = fuse.constant dense<8.0> : tensor<bf16>
  %kh = fuse.constant dense<8.0> : tensor<f16>
  %kf = fuse.constant dense<8.0> : tensor<f32>
  %0 = fuse.mul %x, %k : (tensor<1048576xbf16>, tensor<bf16>) -> tensor<1048576xbf16>
  %1 = fuse.gelu %0 approximate = tanh : tensor<1048576xbf16>
  %2 = fuse.tanh %0 : tensor<1048576xbf16>
  %3 = fuse.mul %h, %kh : (tensor<1048576xf16>, tensor<f16>) -> tensor<1048576xf16>
  %4 = fuse.gelu %3 approximate = tanh : tensor<1048576xf16>
  %5 = fuse.mul %f, %kf : (tensor<1048576xf32>, tensor<f32>) -> tensor<1048576xf32>
  %6 = fuse.gelu %5 approximate = tanh : tensor<1048576xf32>
  return %1, %2, %4, %6 : tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xf16>, tensor<1048576xf32>
}
