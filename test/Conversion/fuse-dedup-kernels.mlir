// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu -fuse-dedup-kernels | FileCheck %s
// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu -fuse-dedup-kernels | FileCheck %s --check-prefix=KERNELS
// RUN: opt-fuse %s --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: opt-fuse %s --emit=summary | FileCheck %s --check-prefix=SUMMARY

// Two layers of the same bias-and-ReLU on the same shapes emit one kernel
// between them; the tanh of another shape keeps its own. The second
// layer's group launches the first's function under its own step name.

// KERNELS-LABEL: gpu.module @opfuse_kernels
// KERNELS: gpu.func @layers_k0(
// KERNELS-NOT: gpu.func @layers_k1(
// KERNELS: gpu.func @layers_k2(
// KERNELS-NOT: gpu.func
// CHECK-LABEL: func.func @layers
// CHECK: fuse.kernel = @opfuse_kernels::@layers_k0
// CHECK-NOT: fuse.step_name = "layers_k0"
// CHECK: fuse.kernel = @opfuse_kernels::@layers_k0{{.*}}fuse.step_name = "layers_k1"
// CHECK: fuse.kernel = @opfuse_kernels::@layers_k2

// Every step keeps its name; the repeated one says which function it runs.
// PLAN: "name": "layers_k0"
// PLAN: "entry": "layers_k0"
// PLAN: "name": "layers_k1"
// PLAN: "name": "layers_k2"

// SUMMARY: kernels: 5 unfused -> 3 fused
// SUMMARY: layers_k0:
// SUMMARY: layers_k1:
// SUMMARY: layers_k2:

func.func @layers(%x: tensor<64x256xf32>, %b0: tensor<256xf32>, %z: tensor<64x256xf32>, %b1: tensor<256xf32>, %y: tensor<32x128xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<32x128xf32>) {
  %0 = fuse.add %x, %b0 : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %1 = fuse.relu %0 : tensor<64x256xf32>
  %2 = fuse.add %z, %b1 : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %3 = fuse.relu %2 : tensor<64x256xf32>
  %4 = fuse.tanh %y : tensor<32x128xf32>
  return %1, %3, %4 : tensor<64x256xf32>, tensor<64x256xf32>, tensor<32x128xf32>
}
