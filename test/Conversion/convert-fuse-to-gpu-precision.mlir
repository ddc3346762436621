// What a value is rounded to picks its formula (PrecisionDemand.cpp): exp
// whose result is rounded to f16 is ex2.approx.ftz.f32 of x log2 e; to bf16
// (whose range is f32's) ex2.approx.f32, without .ftz; an f32 value that an
// f32 output or a subtraction sees keeps math.exp (libdevice's expf). tanh
// rounded to bf16 is tanh.approx.f32.
// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @exp_f16_k0
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[P]]
// CHECK-NOT: math.exp
// CHECK: gpu.return
func.func @exp_f16(%x: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %0 = fuse.exp %x : tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

// -----

// The softmax's exp is f32 after fuse-decompose, then cast to bf16.
// CHECK-LABEL: gpu.func @softmax_bf16_k0
// CHECK-NOT: math.exp
// CHECK: llvm.inline_asm "ex2.approx.f32 $0, $1;"
// CHECK-NOT: math.exp
// CHECK: gpu.return
func.func @softmax_bf16(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

// An f32 output sees the exp itself: f32's formula, even beside a bf16 one.
// CHECK-LABEL: gpu.func @exp_f32_output_k0
// CHECK-NOT: ex2.approx
// CHECK: math.exp
// CHECK-NOT: ex2.approx
// CHECK: gpu.return
func.func @exp_f32_output(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xbf16>) {
  %0 = fuse.exp %x : tensor<64x64xf32>
  %1 = fuse.cast %0 : tensor<64x64xf32> to tensor<64x64xbf16>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xbf16>
}

// -----

// exp(x) - 1 cancels near 0: the subtraction sees f32, so exp keeps it.
// CHECK-LABEL: gpu.func @expm1_bf16_k0
// CHECK-NOT: ex2.approx
// CHECK: math.exp
// CHECK: gpu.return
func.func @expm1_bf16(%x: tensor<64x64xf32>) -> tensor<64x64xbf16> {
  %one = fuse.constant dense<1.0> : tensor<f32>
  %0 = fuse.exp %x : tensor<64x64xf32>
  %1 = fuse.sub %0, %one : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  %2 = fuse.cast %1 : tensor<64x64xf32> to tensor<64x64xbf16>
  return %2 : tensor<64x64xbf16>
}

// -----

// CHECK-LABEL: gpu.func @tanh_to_bf16_k0
// CHECK-NOT: math.tanh
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;"
// CHECK: gpu.return
func.func @tanh_to_bf16(%x: tensor<64x64xf32>) -> tensor<64x64xbf16> {
  %0 = fuse.tanh %x : tensor<64x64xf32>
  %1 = fuse.cast %0 : tensor<64x64xf32> to tensor<64x64xbf16>
  return %1 : tensor<64x64xbf16>
}
