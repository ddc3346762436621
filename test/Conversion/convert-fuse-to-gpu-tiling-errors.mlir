// RUN: opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -verify-diagnostics -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu

// A fuse.matmul_tiling the chip cannot run is an error at the op that
// carries it, with the reason --matmul-tiling would give. (A malformed one
// is refused by the parser: test/Dialect/Fuse/invalid-attributes.mlir.)
func.func @wgmma_on_ampere(%a: tensor<256x512xbf16>, %b: tensor<512x256xbf16>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  // expected-error @below {{fuse.matmul_tiling: wgmma needs sm_90 (the kernels are compiled for sm_80)}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"wgmma:64x256x64/1x1/3">} : (tensor<256x512xbf16>, tensor<512x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %bias : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  return %1 : tensor<256x256xbf16>
}

// -----

// A target whose SMs hold less shared memory than any tiling's stages.
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=target=%S/Inputs/small-shared-memory.json" -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: :[[@LINE+2]]:8: error: no matmul tiling fits the shared memory of small-smem
func.func @no_fit(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}
