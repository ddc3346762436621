// Row reductions and normalisations at the shapes the row emitter treats
// differently: rows of 1, 128, 1000 (masked vectors), 1001 (scalar loads),
// 4096 and 65536 elements (streamed), row counts that leave a block partly
// empty, bf16 inputs, a mean of magnitude 1e4, per-row and per-element
// outputs of one kernel, and reductions over leading dimensions.

func.func @softmax_128(%x: tensor<4096x128xf32>) -> tensor<4096x128xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<4096x128xf32>
  return %0 : tensor<4096x128xf32>
}

func.func @softmax_bf16_1000(%x: tensor<511x1000xbf16>) -> tensor<511x1000xbf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<511x1000xbf16>
  return %0 : tensor<511x1000xbf16>
}

func.func @softmax_65536(%x: tensor<64x65536xf32>) -> tensor<64x65536xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<64x65536xf32>
  return %0 : tensor<64x65536xf32>
}

// Rows of 40000 f32: streamed (10000 vectors over 1024 threads), the last
// pass partly outside the row.
func.func @softmax_40000(%x: tensor<16x40000xf32>) -> tensor<16x40000xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<16x40000xf32>
  return %0 : tensor<16x40000xf32>
}

// layer_norm over two trailing axes of odd sizes (rows of 3 x 333 = 999
// elements, scalar loads), with a 2-D scale.
func.func @layernorm_two_axes(%x: tensor<37x3x333xf32>, %g: tensor<3x333xf32>) -> tensor<37x3x333xf32> {
  %0 = fuse.layer_norm %x scale %g axis = 1 epsilon = 1.0e-05
      : (tensor<37x3x333xf32>, tensor<3x333xf32>) -> tensor<37x3x333xf32>
  return %0 : tensor<37x3x333xf32>
}

// Scores of magnitude 1e4: exp overflows without the max subtracted.
func.func @softmax_1e4(%x: tensor<2048x1024xf32>) -> tensor<2048x1024xf32> {
  %c = fuse.constant dense<1.0e+04> : tensor<f32>
  %scaled = fuse.mul %x, %c : (tensor<2048x1024xf32>, tensor<f32>) -> tensor<2048x1024xf32>
  %0 = fuse.softmax %scaled axis = 1 : tensor<2048x1024xf32>
  return %0 : tensor<2048x1024xf32>
}

func.func @softmax_rows_of_1(%x: tensor<333x1xf32>) -> tensor<333x1xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<333x1xf32>
  return %0 : tensor<333x1xf32>
}

func.func @softmax_axis_0(%x: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %0 = fuse.softmax %x axis = 0 : tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}

// Rows whose mean is 1e4 and whose spread is about 1: a one-pass variance
// (E[x^2] - E[x]^2) loses every digit here.
func.func @layernorm_mean_1e4(%x: tensor<1024x4096xf32>, %g: tensor<4096xf32>,
                              %b: tensor<4096xf32>) -> tensor<1024x4096xf32> {
  %c = fuse.constant dense<1.0e+04> : tensor<f32>
  %shifted = fuse.add %x, %c : (tensor<1024x4096xf32>, tensor<f32>) -> tensor<1024x4096xf32>
  %0 = fuse.layer_norm %shifted scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<1024x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<1024x4096xf32>
  return %0 : tensor<1024x4096xf32>
}

func.func @layernorm_bf16(%x: tensor<2048x768xbf16>, %g: tensor<768xbf16>,
                          %b: tensor<768xbf16>) -> tensor<2048x768xbf16> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<2048x768xbf16>, tensor<768xbf16>, tensor<768xbf16>) -> tensor<2048x768xbf16>
  return %0 : tensor<2048x768xbf16>
}

func.func @layernorm_1001(%x: tensor<300x1001xf32>) -> tensor<300x1001xf32> {
  %0 = fuse.layer_norm %x axis = 1 epsilon = 1.0e-05
      : (tensor<300x1001xf32>) -> tensor<300x1001xf32>
  return %0 : tensor<300x1001xf32>
}

func.func @layernorm_32768(%x: tensor<128x32768xf32>, %g: tensor<32768xf32>,
                           %b: tensor<32768xf32>) -> tensor<128x32768xf32> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<128x32768xf32>, tensor<32768xf32>, tensor<32768xf32>) -> tensor<128x32768xf32>
  return %0 : tensor<128x32768xf32>
}

func.func @rms_norm_bf16(%x: tensor<999x4096xbf16>, %g: tensor<4096xbf16>) -> tensor<999x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06
      : (tensor<999x4096xbf16>, tensor<4096xbf16>) -> tensor<999x4096xbf16>
  return %0 : tensor<999x4096xbf16>
}

// A transformer block's residual stream: h = x + bias + r is written (the
// next block reads it) and normalised in the same kernel.
func.func @bias_residual_layernorm(%x: tensor<4096x1024xbf16>, %bias: tensor<1024xbf16>,
                                   %r: tensor<4096x1024xbf16>, %g: tensor<1024xbf16>,
                                   %b: tensor<1024xbf16>)
    -> (tensor<4096x1024xbf16>, tensor<4096x1024xbf16>) {
  %0 = fuse.add %x, %bias : (tensor<4096x1024xbf16>, tensor<1024xbf16>) -> tensor<4096x1024xbf16>
  %h = fuse.add %0, %r : (tensor<4096x1024xbf16>, tensor<4096x1024xbf16>) -> tensor<4096x1024xbf16>
  %y = fuse.layer_norm %h scale %g bias %b axis = 1 epsilon = 1.0e-05
      : (tensor<4096x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) -> tensor<4096x1024xbf16>
  return %h, %y : tensor<4096x1024xbf16>, tensor<4096x1024xbf16>
}

// Per-row outputs: a sum without keepdims and the max of squares, beside a
// per-element output.
func.func @row_stats(%x: tensor<3000x256xf32>)
    -> (tensor<3000xf32>, tensor<3000x1xf32>, tensor<3000x256xf32>) {
  %s = fuse.reduce_sum %x axes = [1] : tensor<3000x256xf32> -> tensor<3000xf32>
  %sq = fuse.mul %x, %x : (tensor<3000x256xf32>, tensor<3000x256xf32>) -> tensor<3000x256xf32>
  %m = fuse.reduce_max %sq axes = [1] keepdims : tensor<3000x256xf32> -> tensor<3000x1xf32>
  %n = fuse.div %sq, %m : (tensor<3000x256xf32>, tensor<3000x1xf32>) -> tensor<3000x256xf32>
  return %s, %m, %n : tensor<3000xf32>, tensor<3000x1xf32>, tensor<3000x256xf32>
}

func.func @reduce_i32(%x: tensor<256x1000xi32>) -> (tensor<256xi32>, tensor<256xi32>) {
  %s = fuse.reduce_sum %x axes = [1] : tensor<256x1000xi32> -> tensor<256xi32>
  %m = fuse.reduce_max %x axes = [1] : tensor<256x1000xi32> -> tensor<256xi32>
  return %s, %m : tensor<256xi32>, tensor<256xi32>
}

func.func @reduce_i64(%x: tensor<64x2048xi64>) -> tensor<64xi64> {
  %s = fuse.reduce_sum %x axes = [1] : tensor<64x2048xi64> -> tensor<64xi64>
  return %s : tensor<64xi64>
}

// Two trailing axes at once, and reductions over leading and scattered
// axes (a warp's lanes on neighbouring results, warps splitting each).
func.func @reduce_axes(%x: tensor<16x64x32xf32>)
    -> (tensor<16xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<16x1x32xf32>) {
  %a = fuse.reduce_mean %x axes = [1, 2] : tensor<16x64x32xf32> -> tensor<16xf32>
  %b = fuse.reduce_sum %x axes = [0] : tensor<16x64x32xf32> -> tensor<64x32xf32>
  %c = fuse.reduce_max %x axes = [0, 2] : tensor<16x64x32xf32> -> tensor<64xf32>
  %d = fuse.reduce_mean %x axes = [1] keepdims : tensor<16x64x32xf32> -> tensor<16x1x32xf32>
  return %a, %b, %c, %d : tensor<16xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<16x1x32xf32>
}

// Two row kernels over rows of different lengths: the second writes its
// output over the first one's, which dies in it (in place).
func.func @softmax_in_place(%x: tensor<2048x1024xf32>) -> tensor<2048x1024xf32> {
  %r = fuse.reshape %x : tensor<2048x1024xf32> -> tensor<4096x512xf32>
  %a = fuse.softmax %r axis = 1 : tensor<4096x512xf32>
  %b = fuse.reshape %a : tensor<4096x512xf32> -> tensor<2048x1024xf32>
  %d = fuse.layer_norm %b axis = 1 epsilon = 1.0e-05 : (tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  return %d : tensor<2048x1024xf32>
}

// Reductions over leading or middle axes with their prologues and
// epilogues, one strided-row kernel each: ragged bf16 columns, a middle
// axis, columns long enough to stream, short columns, and a batch-norm-like
// normalisation with a per-column scale.
func.func @softmax_axis_0_bf16_ragged(%x: tensor<1000x77xbf16>) -> tensor<1000x77xbf16> {
  %0 = fuse.softmax %x axis = 0 : tensor<1000x77xbf16>
  return %0 : tensor<1000x77xbf16>
}

func.func @softmax_middle_axis(%x: tensor<4x333x40xf32>) -> tensor<4x333x40xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<4x333x40xf32>
  return %0 : tensor<4x333x40xf32>
}

func.func @softmax_axis_0_long(%x: tensor<20000x64xf32>) -> tensor<20000x64xf32> {
  %0 = fuse.softmax %x axis = 0 : tensor<20000x64xf32>
  return %0 : tensor<20000x64xf32>
}

func.func @column_norm(%x: tensor<7x5000xf32>, %g: tensor<5000xf32>) -> (tensor<7x5000xf32>, tensor<1x5000xf32>) {
  %m = fuse.reduce_mean %x axes = [0] keepdims : tensor<7x5000xf32> -> tensor<1x5000xf32>
  %d = fuse.sub %x, %m : (tensor<7x5000xf32>, tensor<1x5000xf32>) -> tensor<7x5000xf32>
  %sq = fuse.mul %d, %d : (tensor<7x5000xf32>, tensor<7x5000xf32>) -> tensor<7x5000xf32>
  %v = fuse.reduce_mean %sq axes = [0] keepdims : tensor<7x5000xf32> -> tensor<1x5000xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<f32>
  %ve = fuse.add %v, %eps : (tensor<1x5000xf32>, tensor<f32>) -> tensor<1x5000xf32>
  %r = fuse.rsqrt %ve : tensor<1x5000xf32>
  %n = fuse.mul %d, %r : (tensor<7x5000xf32>, tensor<1x5000xf32>) -> tensor<7x5000xf32>
  %y = fuse.mul %n, %g : (tensor<7x5000xf32>, tensor<5000xf32>) -> tensor<7x5000xf32>
  return %y, %m : tensor<7x5000xf32>, tensor<1x5000xf32>
}

// A sum of a constant folds away; the add that uses it is the kernel.
func.func @splat_sum(%a: tensor<64xf32>) -> tensor<64xf32> {
  %c = fuse.constant dense<2.0> : tensor<64x100xf32>
  %s = fuse.reduce_sum %c axes = [1] : tensor<64x100xf32> -> tensor<64xf32>
  %y = fuse.add %a, %s : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// A plain column sum of a tall f32 tensor: each sum (about 150 in
// magnitude) is a small sum of large terms (the magnitudes sum to 16384),
// which the tolerance measures against (docs/numerics.md).
func.func @column_sum_tall(%x: tensor<16384x8192xf32>) -> tensor<8192xf32> {
  %s = fuse.reduce_sum %x axes = [0] : tensor<16384x8192xf32> -> tensor<8192xf32>
  return %s : tensor<8192xf32>
}
