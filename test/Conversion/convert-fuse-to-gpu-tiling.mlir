// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80 target=a100" -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=A100
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=target=b300" -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu 2>&1 | FileCheck %s --check-prefix=BADTARGET

// The tile model's auto choice per GEMM shape (docs/cost-model.md), and a
// tiling given in the model. Every GEMM group is left with the tiling used.
// BADTARGET: error: fuse-set-target: unknown target 'b300'

// 8192^3: two warpgroups per 128x256 tile, the measured fastest of eight
// tilings on an H200 (1710 us; 192x256 on three warpgroups 1760 us, its
// 200 registers per thread squeezed into 168).
// CHECK-LABEL: func.func @square
// CHECK: fuse.matmul_tiling = #fuse.tiling<"wgmma:128x256x64/2x1/4">
// A100-LABEL: func.func @square
// A100: fuse.matmul_tiling = #fuse.tiling<"128x256x32/2x4/4">
func.func @square(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %0 : tensor<8192x8192xbf16>
}

// -----

// 64 filters: no tile is wider than 64 columns; 100352 rows fill every SM
// with 256-row tiles.
// CHECK-LABEL: func.func @conv64
// CHECK: fuse.matmul_tiling = #fuse.tiling<"wgmma:256x64x64/4x1/4">
func.func @conv64(%x: tensor<32x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  return %0 : tensor<32x56x56x64xbf16>
}

// -----

// 16 rows (a decode step): one mma.sync tile row of 16, K split so that
// the weight streams through every SM. f32 operands get warps of 32x32:
// 512^3 has 16 tiles of 128x128, so 64x64 tiles with K split in two
// (three on the A100's 108 SMs) fill the SMs; 4096^3 keeps 128x128 on
// the H200; 128x3072 by 3072x768 (GPT-2's MLP down-projection at 128
// tokens) splits K in four.
// CHECK-LABEL: func.func @skinny
// CHECK: fuse.matmul_tiling = #fuse.tiling<"16x{{[0-9]+}}x{{[0-9]+}}/1x{{[0-9]+}}/{{[34]}}/k{{[0-9]+}}">
// CHECK-LABEL: func.func @f32
// CHECK: fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3/k2">
// CHECK-LABEL: func.func @f32_large
// CHECK: fuse.matmul_tiling = #fuse.tiling<"128x128x32/4x4/3">
// CHECK-LABEL: func.func @f32_down_projection
// CHECK: fuse.grid = array<i64: 96, 1, 1>
// CHECK-SAME: fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3/k4">
// A100-LABEL: func.func @f32
// A100: fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3/k3">
func.func @skinny(%a: tensor<16x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<16x4096xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<16x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<16x4096xbf16>
  return %0 : tensor<16x4096xbf16>
}
func.func @f32(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = fuse.matmul %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
func.func @f32_large(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fuse.matmul %a, %b : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
func.func @f32_down_projection(%a: tensor<128x3072xf32>, %b: tensor<3072x768xf32>) -> tensor<128x768xf32> {
  %0 = fuse.matmul %a, %b : (tensor<128x3072xf32>, tensor<3072x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// A tiling written on the matmul wins over auto on every chip, through
// fusion into a group with its epilogue (convert-fuse-to-gpu-tiling-errors
// has the ones refused).
// CHECK-LABEL: func.func @own
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, cp_async>, fuse.grid = array<i64: 8, 1, 1>, {{.*}}fuse.matmul_tiling = #fuse.tiling<"64x128x32/2x2/3">
// A100-LABEL: func.func @own
// A100: fuse.matmul_tiling = #fuse.tiling<"64x128x32/2x2/3">
func.func @own(%a: tensor<256x512xbf16>, %b: tensor<512x256xbf16>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"64x128x32/2x2/3">} : (tensor<256x512xbf16>, tensor<512x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %bias : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  return %1 : tensor<256x256xbf16>
}
