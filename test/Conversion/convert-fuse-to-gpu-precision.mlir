// What a value is rounded to picks its formula (PrecisionDemand.cpp): exp
// whose result is rounded to f16 is ex2.approx.ftz.f32 of x log2 e; to bf16
// (whose range is f32's) ex2.approx.f32, without .ftz; an f32 value that an
// f32 output or a subtraction sees keeps math.exp (libdevice's expf). tanh
// rounded to bf16 is tanh.approx.f32. GELU (erf) rounded to bf16 or f16 is
// x Phi(x) on one polynomial and one ex2 (FastMath.cpp), fitted to the
// type it is rounded to, f32 included.
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

// -----

// GELU (erf) rounded to bf16: |x| clamped at 13.5 into a degree-6
// polynomial, -(1 + |x| P) into ex2 without .ftz (bf16 has f32's range),
// 2^-E below zero and 1 - 2^-E above, times x. No erf pieces.
// CHECK-LABEL: gpu.func @gelu_erf_bf16_k0
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[X:.*]], %{{.*}} : f32
// CHECK: %[[U:.*]] = math.absf %[[X]] : f32
// CHECK: %[[C:.*]] = arith.minimumf %[[U]], %{{.*}} : f32
// CHECK-COUNT-6: math.fma %{{.*}}, %[[C]], %{{.*}} : f32
// CHECK-NOT: %[[C]]
// CHECK: %[[NP:.*]] = arith.negf
// CHECK: %[[E:.*]] = math.fma %[[U]], %[[NP]], %{{.*}} : f32
// CHECK: %[[T:.*]] = llvm.inline_asm "ex2.approx.f32 $0, $1;", "=f,f" %[[E]]
// CHECK: %[[ONE_MINUS:.*]] = arith.subf %{{.*}}, %[[T]] : f32
// CHECK: %[[PHI:.*]] = arith.select %[[NEG]], %[[T]], %[[ONE_MINUS]] : f32
// CHECK: arith.mulf %[[X]], %[[PHI]] : f32
// CHECK-NOT: math.erf
// CHECK: gpu.return
func.func @gelu_erf_bf16(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = fuse.gelu %x approximate = none : tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

// f16: degree 5, clamped at 6, ex2 with .ftz (f16 flushes far earlier).
// CHECK-LABEL: gpu.func @gelu_erf_f16_k0
// CHECK: %[[C:.*]] = arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-5: math.fma %{{.*}}, %[[C]], %{{.*}} : f32
// CHECK-NOT: %[[C]]
// CHECK: arith.negf
// CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// CHECK: gpu.return
func.func @gelu_erf_f16(%x: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %0 = fuse.gelu %x approximate = none : tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

// -----

// An f32 GELU only cast to bf16 is rounded to bf16: bf16's fit (ex2
// without .ftz). An f32 output (its own kernel) gets f32's: degree 10,
// ex2.approx.ftz.f32. Neither computes erf.
// CHECK-LABEL: gpu.func @gelu_erf_f32_k0
// CHECK-NOT: math.erf
// CHECK: arith.minimumf
// CHECK: llvm.inline_asm "ex2.approx.f32 $0, $1;"
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @gelu_erf_f32_k1
// CHECK-NOT: math.erf
// CHECK: %[[C:.*]] = arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-10: math.fma %{{.*}}, %[[C]], %{{.*}} : f32
// CHECK-NOT: %[[C]]
// CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// CHECK-NOT: math.erf
// CHECK: gpu.return
func.func @gelu_erf_f32(%x: tensor<64x64xf32>) -> (tensor<64x64xbf16>, tensor<64x64xf32>) {
  %0 = fuse.gelu %x approximate = none : tensor<64x64xf32>
  %1 = fuse.cast %0 : tensor<64x64xf32> to tensor<64x64xbf16>
  %2 = fuse.gelu %x approximate = none : tensor<64x64xf32>
  return %1, %2 : tensor<64x64xbf16>, tensor<64x64xf32>
}
