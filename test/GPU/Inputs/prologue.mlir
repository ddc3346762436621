// GEMMs that compute their A operand in a prologue (elementwise ops applied
// to each K slice in shared memory): the shapes and inputs the prologue
// treats differently. Ragged M and K (rows past M computed and never
// stored, columns past K kept zero where log(0) would be -inf), K that is
// not whole 16-byte chunks (inputs along K read one by one), per-row and
// per-column inputs (a softmax's statistics, a bias), batches, f16, f32
// (mma.sync FMAs), and a decode-size norm.

func.func @relu_a(%x: tensor<300x512xbf16>, %w: tensor<512x200xbf16>) -> tensor<300x200xbf16> {
  %0 = fuse.relu %x : tensor<300x512xbf16>
  %1 = fuse.matmul %0, %w : (tensor<300x512xbf16>, tensor<512x200xbf16>) -> tensor<300x200xbf16>
  return %1 : tensor<300x200xbf16>
}

func.func @log_ragged_k(%x: tensor<260x200xbf16>, %w: tensor<200x96xbf16>) -> tensor<260x96xbf16> {
  %0 = fuse.abs %x : tensor<260x200xbf16>
  %1 = fuse.log %0 : tensor<260x200xbf16>
  %2 = fuse.matmul %1, %w : (tensor<260x200xbf16>, tensor<200x96xbf16>) -> tensor<260x96xbf16>
  return %2 : tensor<260x96xbf16>
}

func.func @bias_k100(%x: tensor<130x100xf16>, %bias: tensor<100xf16>, %w: tensor<100x72xf16>) -> tensor<130x72xf16> {
  %0 = fuse.add %x, %bias : (tensor<130x100xf16>, tensor<100xf16>) -> tensor<130x100xf16>
  %1 = fuse.tanh %0 : tensor<130x100xf16>
  %2 = fuse.matmul %1, %w : (tensor<130x100xf16>, tensor<100x72xf16>) -> tensor<130x72xf16>
  return %2 : tensor<130x72xf16>
}

func.func @softmax_pv(%s: tensor<2x4x200x200xbf16>, %v: tensor<2x4x200x64xbf16>) -> tensor<2x4x200x64xbf16> {
  %0 = fuse.softmax %s axis = 3 : tensor<2x4x200x200xbf16>
  %1 = fuse.matmul %0, %v : (tensor<2x4x200x200xbf16>, tensor<2x4x200x64xbf16>) -> tensor<2x4x200x64xbf16>
  return %1 : tensor<2x4x200x64xbf16>
}

func.func @scaled_rows(%x: tensor<3x256x384xbf16>, %r: tensor<3x256x1xf32>, %c: tensor<384xbf16>, %w: tensor<384x128xbf16>) -> tensor<3x256x128xbf16> {
  %0 = fuse.cast %x : tensor<3x256x384xbf16> to tensor<3x256x384xf32>
  %1 = fuse.mul %0, %r : (tensor<3x256x384xf32>, tensor<3x256x1xf32>) -> tensor<3x256x384xf32>
  %2 = fuse.cast %c : tensor<384xbf16> to tensor<384xf32>
  %3 = fuse.mul %1, %2 : (tensor<3x256x384xf32>, tensor<384xf32>) -> tensor<3x256x384xf32>
  %4 = fuse.cast %3 : tensor<3x256x384xf32> to tensor<3x256x384xbf16>
  %5 = fuse.matmul %4, %w : (tensor<3x256x384xbf16>, tensor<384x128xbf16>) -> tensor<3x256x128xbf16>
  return %5 : tensor<3x256x128xbf16>
}

func.func @relu_f32(%x: tensor<200x136xf32>, %w: tensor<136x72xf32>) -> tensor<200x72xf32> {
  %0 = fuse.relu %x : tensor<200x136xf32>
  %1 = fuse.matmul %0, %w : (tensor<200x136xf32>, tensor<136x72xf32>) -> tensor<200x72xf32>
  return %1 : tensor<200x72xf32>
}

func.func @decode_norm(%x: tensor<4x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x64xbf16>) -> tensor<4x64xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<4x2048xbf16>, tensor<2048xbf16>) -> tensor<4x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4x2048xbf16>, tensor<2048x64xbf16>) -> tensor<4x64xbf16>
  return %1 : tensor<4x64xbf16>
}

// Norms whose statistics the GEMM reduces itself (few rows): a layer norm
// (mean, then the variance around it) over batch-folded rows, with bias.
func.func @decode_layer_norm(%x: tensor<8x1x768xbf16>, %g: tensor<768xbf16>, %b: tensor<768xbf16>, %w: tensor<768x2304xbf16>) -> tensor<8x1x2304xbf16> {
  %0 = fuse.layer_norm %x scale %g bias %b axis = 2 epsilon = 1.0e-05 : (tensor<8x1x768xbf16>, tensor<768xbf16>, tensor<768xbf16>) -> tensor<8x1x768xbf16>
  %1 = fuse.matmul %0, %w : (tensor<8x1x768xbf16>, tensor<768x2304xbf16>) -> tensor<8x1x2304xbf16>
  return %1 : tensor<8x1x2304xbf16>
}

// K of 1001 f16: not whole 16-byte chunks, not whole slices.
func.func @decode_norm_ragged_k(%x: tensor<3x1001xf16>, %g: tensor<1001xf16>, %w: tensor<1001x96xf16>) -> tensor<3x96xf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<3x1001xf16>, tensor<1001xf16>) -> tensor<3x1001xf16>
  %1 = fuse.matmul %0, %w : (tensor<3x1001xf16>, tensor<1001x96xf16>) -> tensor<3x96xf16>
  return %1 : tensor<3x96xf16>
}

// A decode block's residual add, norm and projection: the add's sum is
// the norm's source and also read after the GEMM.
func.func @decode_residual_norm(%x: tensor<4x1x1024xbf16>, %y: tensor<4x1x1024xbf16>, %g: tensor<1024xbf16>, %w: tensor<1024x3000xbf16>) -> (tensor<4x1x3000xbf16>, tensor<4x1x1024xbf16>) {
  %h = fuse.add %x, %y : (tensor<4x1x1024xbf16>, tensor<4x1x1024xbf16>) -> tensor<4x1x1024xbf16>
  %0 = fuse.rms_norm %h scale %g axis = 2 epsilon = 1.0e-06 : (tensor<4x1x1024xbf16>, tensor<1024xbf16>) -> tensor<4x1x1024xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4x1x1024xbf16>, tensor<1024x3000xbf16>) -> tensor<4x1x3000xbf16>
  %2 = fuse.mul %h, %h : (tensor<4x1x1024xbf16>, tensor<4x1x1024xbf16>) -> tensor<4x1x1024xbf16>
  return %1, %2 : tensor<4x1x3000xbf16>, tensor<4x1x1024xbf16>
}

// f32: the mma.sync kernel's FMAs, statistics in f32 of f32 rows.
func.func @decode_norm_f32(%x: tensor<5x640xf32>, %g: tensor<640xf32>, %w: tensor<640x200xf32>) -> tensor<5x200xf32> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<5x640xf32>, tensor<640xf32>) -> tensor<5x640xf32>
  %1 = fuse.matmul %0, %w : (tensor<5x640xf32>, tensor<640x200xf32>) -> tensor<5x200xf32>
  return %1 : tensor<5x200xf32>
}

// A long K (20000): more chunks a thread than the statistics pass unrolls,
// so it loops over groups of them, the last group partial and masked.
func.func @decode_norm_long_k(%x: tensor<2x20000xbf16>, %g: tensor<20000xbf16>, %w: tensor<20000x64xbf16>) -> tensor<2x64xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<2x20000xbf16>, tensor<20000xbf16>) -> tensor<2x20000xbf16>
  %1 = fuse.matmul %0, %w : (tensor<2x20000xbf16>, tensor<20000x64xbf16>) -> tensor<2x64xbf16>
  return %1 : tensor<2x64xbf16>
}
