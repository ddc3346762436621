// erf runs opfuse's own branch-free f32 formula (FastMath.cpp): an odd
// polynomial below 1, 1 - 2^(polynomial) from 1 on, with ex2.approx.ftz.f32.
// The inputs (uniform in [-1, 1]) are scaled to [-5, 5] so that both pieces,
// their boundary and the saturation at 1 are covered. GELU (erf) is x Phi(x)
// on one polynomial per result type (FastMath.cpp's emitGeluErf), here for
// f32 and bf16 results.
func.func @wide_erf(%f: tensor<1048576xf32>, %x: tensor<1048576xbf16>) -> (tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>) {
  %kf = fuse.constant dense<5.0> : tensor<f32>
  %k = fuse.constant dense<5.0> : tensor<bf16>
  %0 = fuse.mul %f, %kf : (tensor<1048576xf32>, tensor<f32>) -> tensor<1048576xf32>
  %1 = fuse.erf %0 : tensor<1048576xf32>
  %2 = fuse.gelu %0 approximate = none : tensor<1048576xf32>
  %3 = fuse.mul %x, %k : (tensor<1048576xbf16>, tensor<bf16>) -> tensor<1048576xbf16>
  %4 = fuse.gelu %3 approximate = none : tensor<1048576xbf16>
  return %1, %2, %4 : tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>
}

// f32 arguments at the edges: zeros of both signs, a subnormal, both sides
// of the boundary at 1, where erf rounds to 1 (3.92) and the clamp at 4,
// huge values, infinities and NaN.
func.func @f32_edges() -> tensor<16xf32> {
  %x = fuse.constant dense<[0.0, -0.0, 1.0e-40, 1.0e-20, 0.99999994, 1.0, -1.0, -0.99999994, 3.91, 3.93, 4.0, -4.5, 1.0e30, 0xFF800000, 0x7F800000, 0x7FC00000]> : tensor<16xf32>
  %0 = fuse.erf %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}
