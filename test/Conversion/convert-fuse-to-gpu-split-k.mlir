// Split-K GEMM kernels (lib/Conversion/FuseToGPU/GemmSplitK.cpp): the tile
// model splits K where the output tiles leave SMs idle, the grid holds one
// block per split of each tile, the kernel takes a workspace and counters
// after its buffers, every block stores its partials, the last block of a
// tile (atomic counter, acq_rel) sums them in split order with volatile
// loads, zeroes the counter and runs the epilogue; the launch plan says
// what the runtime must provide. A forced wgmma tiling is split into equal
// parts only, fed by cp.async (the two extra parameters are the workspace and the
// counters, not tensor maps), one tile per block.
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=64x64x32/2x2/3/k7" | FileCheck %s --check-prefix=FORCED
// RUN: opt-fuse %s --function=down --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: opfuse-opt %S/Inputs/split-k-wgmma.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=wgmma:128x128x64/2x1/4/k4" | FileCheck %s --check-prefix=WGMMA
// RUN: opt-fuse %S/Inputs/split-k-wgmma.mlir --emit=summary | FileCheck %s --check-prefix=WGMMA-AUTO
// RUN: not opt-fuse %S/Inputs/split-k-wgmma.mlir --emit=summary --matmul-tiling=wgmma:128x128x64/2x1/4/k3 2>&1 | FileCheck %s --check-prefix=WGMMA-UNEVEN
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=64x64x32/2x2/3/k0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=64x64x32/2x2/3/8" 2>&1 | FileCheck %s --check-prefix=NOK

// 48 tiles of 128x128 in 4 splits of 8 slices: 192 blocks of 256 threads.
// WGMMA: fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<wgmma, cp_async>, fuse.grid = array<i64: 192, 1, 1>
// WGMMA: gpu.func @mid_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>)
// WGMMA: nvvm.wgmma.mma_async
// WGMMA: llvm.atomicrmw add {{.*}} acq_rel
// The tile model splits a wgmma tiling whose tiles leave at least half of
// the SMs idle, into equal parts: 64 tiles of 192x64 in 2 splits of 16
// slices (128 blocks), where whole K would run 96 tiles of 64x128.
// WGMMA-AUTO: mid_k0: 2 ops, grid 128 x block 384, {{.*}} tiling wgmma:192x64x64/3x1/4/k2
// WGMMA-UNEVEN: error: matmul-tiling wgmma:128x128x64/2x1/4/k3: a wgmma tiling splits K only into equal parts, and 32 slices of 64 do not divide by 3
// ZERO: error: convert-fuse-to-gpu: matmul-tiling: '64x64x32/2x2/3/k0': the split-K part must be kP with P from 1 to 256 (e.g. 128x64x32/4x2/3/k4)
// NOK: '64x64x32/2x2/3/8': the split-K part must be kP

// GPT-2's MLP down-projection at 128 tokens: 24 tiles of 64x64, K in 4
// splits of 24 slices.
// CHECK-LABEL: func.func @down
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<fma, cp_async>, fuse.grid = array<i64: 96, 1, 1>, {{.*}}fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3/k4">
// Three buffers, then the workspace and the counters.
// CHECK: gpu.func @down_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[WS:.*]]: !llvm.ptr<1>, %[[COUNTERS:.*]]: !llvm.ptr<1>)
// The split's slices: min(24, 96 - 24 * split), at least 0.
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: scf.for
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<1>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COUNTER:.*]] = llvm.getelementptr %[[COUNTERS]]
// CHECK: llvm.atomicrmw add %[[COUNTER]], {{.*}} acq_rel
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: scf.for {{.*}} to %c4
// CHECK: llvm.load volatile
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %[[COUNTER]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
// FORCED-LABEL: func.func @down
// FORCED: fuse.grid = array<i64: 168, 1, 1>, {{.*}}fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3/k7">
// PLAN: "kind": "kernel",
// PLAN: "split_k": {
// PLAN-NEXT: "counters": 24,
// PLAN-NEXT: "splits": 4,
// PLAN-NEXT: "workspace_bytes": 1572864
// PLAN: "tiling": "64x64x32/2x2/3/k4"
func.func @down(%a: tensor<128x3072xf32>, %b: tensor<3072x768xf32>, %bias: tensor<768xf32>) -> tensor<128x768xf32> {
  %0 = fuse.matmul %a, %b : (tensor<128x3072xf32>, tensor<3072x768xf32>) -> tensor<128x768xf32>
  %1 = fuse.add %0, %bias : (tensor<128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
  return %1 : tensor<128x768xf32>
}

// -----

// Enough tiles to fill the SMs: no split.
// CHECK-LABEL: func.func @wide
// CHECK: fuse.matmul_tiling = #fuse.tiling<"128x128x32/4x4/3">
// CHECK: gpu.func @wide_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>)
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
func.func @wide(%a: tensor<2048x1024xf32>, %b: tensor<1024x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = fuse.matmul %a, %b : (tensor<2048x1024xf32>, tensor<1024x2048xf32>) -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
