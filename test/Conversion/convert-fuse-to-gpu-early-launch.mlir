// Early launch (programmatic dependent launch, sm_90): every kernel waits
// for the grids before it (griddepcontrol.wait, inline PTX with a memory
// clobber so that no load or store moves above it) before it reads their
// outputs or writes, and then lets the next kernel launch; its group gets
// fuse.early_launch, which the plan carries as early_launch. A decode-size
// GEMM on mma.sync (split-K) whose B is the function's argument (a weight,
// which no kernel writes) copies its first B slices before the wait, as one
// commit group, copies A
// (the norm's output) only after the wait, and lets the next kernel launch
// after its main loop, under the split-K sums and the epilogue. Off with
// early-launch=false, and on chips before sm_90.
// RUN: opfuse-opt %s -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=early-launch=false" | FileCheck %s --check-prefix=OFF
// RUN: opfuse-opt %s "-fuse-set-target=chip=sm_80" -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: opt-fuse %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: opt-fuse %s --emit=plan --early-launch=false | FileCheck %s --check-prefix=PLAN-OFF
// RUN: opt-fuse %s --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @norm_proj
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 64, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, cp_async>
// CHECK-SAME: fuse.matmul_tiling = #fuse.tiling<"16x64x128/1x2/4/k2">
// The norm: wait, then launch the next, first thing.
// CHECK: gpu.func @norm_proj_k0
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"  : () -> ()
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;", "~{memory}"  : () -> ()
// The GEMM (16x64x128 tiles, 2 warps, 4 stages, K in 2 splits): 128 x 64
// B elements a slice, 8 per copy, 64 threads: 16 copies a slice, three
// slices in flight, one group; no L2 prefetches (measured slower).
// CHECK: gpu.func @norm_proj_k1
// CHECK-NOT: griddepcontrol
// CHECK-COUNT-48: nvvm.cp.async.shared.global
// CHECK-NOT: griddepcontrol
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: prefetch
// CHECK: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// A after the wait, one group per stage (16 x 128 A elements: four copies
// a thread).
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;"
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return

// OFF-LABEL: func.func @norm_proj
// OFF-NOT: fuse.early_launch
// OFF-NOT: griddepcontrol

// PLAN-COUNT-2: "early_launch": true
// PLAN-OFF-NOT: early_launch

// PTX: .entry norm_proj_k0(
// PTX-NOT: .entry
// PTX: griddepcontrol.wait;
// PTX-NOT: {{ld.global|st.global}}
// PTX: griddepcontrol.launch_dependents;
// PTX: .entry norm_proj_k1(
// PTX: griddepcontrol.wait;
// PTX: griddepcontrol.launch_dependents;
func.func @norm_proj(%x: tensor<4x2048xbf16>, %g: tensor<2048xbf16>, %w: tensor<2048x4096xbf16>) -> tensor<4x4096xbf16> {
  %0 = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.0e-06 : (tensor<4x2048xbf16>, tensor<2048xbf16>) -> tensor<4x2048xbf16>
  %1 = fuse.matmul %0, %w : (tensor<4x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<4x4096xbf16>
  return %1 : tensor<4x4096xbf16>
}
