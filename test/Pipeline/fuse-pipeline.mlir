// RUN: opfuse-opt %s --fuse-pipeline='emit-binary=0' | FileCheck %s --check-prefix=KERNELS
// RUN: opfuse-opt %s --fuse-pipeline | FileCheck %s --check-prefix=BINARY
// RUN: opfuse-opt %s --fuse-pipeline='fuse=0 emit-binary=0' | FileCheck %s --check-prefix=UNFUSED

// --fuse-pipeline is the pipeline opt-fuse runs (buildFusePipeline):
// canonicalize (x * 1 folds away), fuse-elementwise, convert-fuse-to-gpu,
// then the NVVM lowering and serialisation to PTX.

// KERNELS-LABEL: func.func @chain
// KERNELS: fuse.group{{.*}}fuse.kernel = @opfuse_kernels::@chain_k0
// KERNELS-NOT: fuse.group
// KERNELS: gpu.module @opfuse_kernels
// KERNELS: gpu.func @chain_k0
// KERNELS-NOT: gpu.func

// BINARY: gpu.binary @opfuse_kernels
// BINARY-SAME: .entry chain_k0
// BINARY-NOT: gpu.module

// UNFUSED-COUNT-2: fuse.group
// UNFUSED: gpu.func @chain_k0
// UNFUSED: gpu.func @chain_k1
func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %one = fuse.constant dense<1.0> : tensor<f32>
  %0 = fuse.mul %x, %one : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %1 = fuse.exp %0 : tensor<1024xf32>
  %2 = fuse.tanh %1 : tensor<1024xf32>
  return %2 : tensor<1024xf32>
}
