// RUN: opfuse-opt %s | opfuse-opt | FileCheck %s
// RUN: opfuse-opt %s -mlir-print-op-generic | opfuse-opt | FileCheck %s

// Round trip of matmul (batch dimensions, transposes) and conv2d.

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>,
                  %q: tensor<8x128x64xf16>, %k: tensor<8x128x64xf16>,
                  %w: tensor<64x32xf16>, %bt: tensor<3x1x32x64xf32>,
                  %bb: tensor<5x16x32xf32>) {
  // CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<64x32xbf16>, tensor<32x16xbf16>) -> tensor<64x16xbf16>
  %0 = fuse.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x16xbf16>) -> tensor<64x16xbf16>
  // CHECK: fuse.matmul %{{.*}}, %{{.*}} transpose_b : (tensor<8x128x64xf16>, tensor<8x128x64xf16>) -> tensor<8x128x128xf16>
  %1 = fuse.matmul %q, %k transpose_b : (tensor<8x128x64xf16>, tensor<8x128x64xf16>) -> tensor<8x128x128xf16>
  // A batched lhs times a shared rhs.
  // CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<8x128x64xf16>, tensor<64x32xf16>) -> tensor<8x128x32xf16>
  %2 = fuse.matmul %q, %w : (tensor<8x128x64xf16>, tensor<64x32xf16>) -> tensor<8x128x32xf16>
  // Batch dimensions broadcast: [3, 1] with [5] gives [3, 5].
  // CHECK: fuse.matmul %{{.*}}, %{{.*}} transpose_a transpose_b : (tensor<3x1x32x64xf32>, tensor<5x16x32xf32>) -> tensor<3x5x64x16xf32>
  %3 = fuse.matmul %bt, %bb transpose_a transpose_b : (tensor<3x1x32x64xf32>, tensor<5x16x32xf32>) -> tensor<3x5x64x16xf32>
  return
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<32x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>,
                %dw: tensor<64x3x3x1xbf16>) {
  // CHECK: fuse.conv2d %{{.*}}, %{{.*}} strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  // Strided, unpadded: (56 - 3) / 2 + 1 = 27.
  // CHECK: fuse.conv2d {{.*}} -> tensor<32x27x27x64xbf16>
  %1 = fuse.conv2d %x, %w strides = [2, 2] padding = [0, 0, 0, 0] dilation = [1, 1] groups = 1
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x27x27x64xbf16>
  // Depthwise with dilation 2: 56 + 2 - 2*2 - 1 + 1 = 54.
  // CHECK: fuse.conv2d {{.*}} dilation = [2, 2] groups = 64 : (tensor<32x56x56x64xbf16>, tensor<64x3x3x1xbf16>) -> tensor<32x54x54x64xbf16>
  %2 = fuse.conv2d %x, %dw strides = [1, 1] padding = [1, 1, 1, 1] dilation = [2, 2] groups = 64
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x1xbf16>) -> tensor<32x54x54x64xbf16>
  // A transposed convolution's form: the input dilated by 2 spans
  // (56 - 1) * 2 + 1 = 111, padded by 2 each side: 111 + 4 - 2 = 113. The
  // default input_dilation [1, 1] is not printed.
  // CHECK: fuse.conv2d {{.*}} groups = 1 input_dilation = [2, 2] : {{.*}} -> tensor<32x113x113x64xbf16>
  %3 = fuse.conv2d %x, %w strides = [1, 1] padding = [2, 2, 2, 2] dilation = [1, 1] groups = 1 input_dilation = [2, 2]
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x113x113x64xbf16>
  // Written out, the default reads as the attribute left out.
  // CHECK: fuse.conv2d {{.*}} groups = 1 : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  %4 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 input_dilation = [1, 1]
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  return
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x100x64xbf16>,
                     %v: tensor<2x2x100x32xbf16>, %m: tensor<2x1x128x100xbf16>) {
  // Grouped-query heads (8 on 2), a key sequence of its own, Dv != D.
  // CHECK: fuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 : (tensor<2x8x128x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x32xbf16>) -> tensor<2x8x128x32xbf16>
  %0 = fuse.attention %q, %k, %v scale = 1.250000e-01
      : (tensor<2x8x128x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x32xbf16>) -> tensor<2x8x128x32xbf16>
  // CHECK: fuse.attention {{.*}} mask %{{.*}} scale = 1.250000e-01 causal : (tensor<2x8x128x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x32xbf16>, tensor<2x1x128x100xbf16>) -> tensor<2x8x128x32xbf16>
  %1 = fuse.attention %q, %k, %v mask %m scale = 1.250000e-01 causal
      : (tensor<2x8x128x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x32xbf16>, tensor<2x1x128x100xbf16>) -> tensor<2x8x128x32xbf16>
  // A soft cap (Gemma 2's 50) on the scaled scores.
  // CHECK: fuse.attention {{.*}} scale = 1.250000e-01 softcap = 5.000000e+01 causal :
  %2 = fuse.attention %q, %k, %v scale = 1.250000e-01 softcap = 50.0 causal
      : (tensor<2x8x128x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x32xbf16>) -> tensor<2x8x128x32xbf16>
  return
}
