// RUN: opfuse-opt %s -split-input-file -verify-diagnostics -fuse-elementwise -convert-fuse-to-gpu=chip=sm_80

// A fuse.matmul_tiling the kernel cannot use is an error at the op that
// carries it, with the reason --matmul-tiling would give.
func.func @malformed(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{fuse.matmul_tiling: 'wide' is not [wgmma:]BMxBNxBK/WMxWN/S with positive integers}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = "wide"} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @wgmma_on_ampere(%a: tensor<256x512xbf16>, %b: tensor<512x256xbf16>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  // expected-error @below {{fuse.matmul_tiling: wgmma needs sm_90 (the kernels are compiled for sm_80)}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = "wgmma:64x256x64/1x1/3"} : (tensor<256x512xbf16>, tensor<512x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %bias : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  return %1 : tensor<256x256xbf16>
}

// -----

// A target whose SMs hold less shared memory than any tiling's stages.
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise "-convert-fuse-to-gpu=target=%S/Inputs/small-shared-memory.json" 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: :[[@LINE+2]]:8: error: no matmul tiling fits the shared memory of small-smem
func.func @no_fit(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
