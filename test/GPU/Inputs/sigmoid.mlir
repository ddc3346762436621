// sigmoid and SiLU with bf16 and f16 results run on the SM's
// ex2.approx.ftz.f32 and rcp.approx.ftz.f32; the inputs (uniform in
// [-1, 1]) are scaled to [-16, 16] so that the arguments cover the whole
// curve, its saturation included. The f32 SiLU uses them too, with the
// exponent's rounding error added back (docs/numerics.md).
func.func @wide_sigmoid(%x: tensor<1048576xbf16>, %h: tensor<1048576xf16>, %f: tensor<1048576xf32>) -> (tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xf16>, tensor<1048576xf32>) {
  %k = fuse.constant dense<16.0> : tensor<bf16>
  %kh = fuse.constant dense<16.0> : tensor<f16>
  %kf = fuse.constant dense<16.0> : tensor<f32>
  %0 = fuse.mul %x, %k : (tensor<1048576xbf16>, tensor<bf16>) -> tensor<1048576xbf16>
  %1 = fuse.silu %0 : tensor<1048576xbf16>
  %2 = fuse.sigmoid %0 : tensor<1048576xbf16>
  %3 = fuse.mul %h, %kh : (tensor<1048576xf16>, tensor<f16>) -> tensor<1048576xf16>
  %4 = fuse.silu %3 : tensor<1048576xf16>
  %5 = fuse.mul %f, %kf : (tensor<1048576xf32>, tensor<f32>) -> tensor<1048576xf32>
  %6 = fuse.silu %5 : tensor<1048576xf32>
  return %1, %2, %4, %6 : tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xf16>, tensor<1048576xf32>
}

// f32 arguments at the edges: 2^(-x log2 e) overflows to inf from x =
// -88.72 on (the result is then 0, never NaN), flushes to 0 for large x,
// and infinities give 0 and 1.
func.func @f32_edges() -> (tensor<12xf32>, tensor<12xf32>) {
  %x = fuse.constant dense<[-88.72301, -88.7, -89.0, -100.0, -1.0e30, 0xFF800000, 88.72301, 100.0, 1.0e30, 0x7F800000, -16.66672, -6.991582]> : tensor<12xf32>
  %0 = fuse.sigmoid %x : tensor<12xf32>
  %1 = fuse.silu %x : tensor<12xf32>
  return %0, %1 : tensor<12xf32>, tensor<12xf32>
}
