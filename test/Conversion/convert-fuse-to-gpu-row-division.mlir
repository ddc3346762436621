// A row kernel divides each element by a per-row value (softmax's sum)
// through the row's reciprocal, computed once per thread before the pass
// that stores: a product, an FMA correction (Markstein) and a fallback to
// the product where the corrected quotient is NaN or zero, with the divisor
// scaled by 2^64 or 2^-64 when it is subnormal or above 2^126. Elements
// are not divided one by one. numerics=strict keeps one division per
// element; a division by another element, or of a per-row value, keeps
// it too. A quotient that is only rounded to f16 or bf16 (a 16-bit
// softmax's) skips the correction: the product alone.
// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=numerics=strict" | FileCheck %s --check-prefix=STRICT
// RUN: opt-fuse %s --function=softmax_bf16 --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @softmax_f32_k0
// CHECK-NOT: arith.divf
// CHECK: %[[SCALE:.*]] = arith.select %{{.*}}, %cst{{.*}}, %{{[0-9]+}} : f32
// CHECK-NEXT: %[[A:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[B:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %{{.*}}, %[[B]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %[[A]], %[[Y]] : f32
// CHECK-NEXT: %[[NQ:.*]] = arith.negf %[[Q]] : f32
// CHECK-NEXT: %[[E:.*]] = math.fma %[[NQ]], %[[B]], %[[A]] : f32
// CHECK: %[[C:.*]] = arith.select %{{.*}}, %[[Y]], %{{.*}} : f32
// CHECK-NEXT: %[[Q2:.*]] = math.fma %[[E]], %[[C]], %[[Q]] : f32
// CHECK: %[[BAD:.*]] = arith.cmpf ueq, %[[Q2]], %{{.*}} : f32
// CHECK-NEXT: arith.select %[[BAD]], %[[Q]], %[[Q2]] : f32
// CHECK-NOT: arith.divf
// CHECK: gpu.return

// STRICT-LABEL: gpu.func @softmax_f32_k0
// STRICT-NOT: math.fma
// STRICT-COUNT-4: arith.divf
// STRICT-NOT: math.fma
// STRICT: gpu.return
func.func @softmax_f32(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = fuse.softmax %x axis = 1 : tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// The bf16 softmax's quotients are rounded to bf16 before anything reads
// them: the scaled dividend times the reciprocal, no FMA, no fallback.
// CHECK-LABEL: gpu.func @softmax_bf16_k0
// CHECK-NOT: arith.divf
// CHECK: %[[SCALE:.*]] = arith.select %{{.*}}, %cst{{.*}}, %{{[0-9]+}} : f32
// CHECK-NEXT: %[[A:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[B:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %{{.*}}, %[[B]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %[[A]], %[[Y]] : f32
// CHECK-NEXT: arith.truncf %[[Q]] : f32 to bf16
// CHECK-NOT: math.fma
// CHECK-NOT: arith.cmpf ueq
// CHECK-NOT: math.fma
// CHECK-NOT: arith.divf
// CHECK: gpu.return

// STRICT-LABEL: gpu.func @softmax_bf16_k0
// STRICT-NOT: math.fma
// STRICT-COUNT-8: arith.divf
// STRICT-NOT: math.fma
// STRICT: gpu.return

// One reciprocal in the PTX, and no element division.
// PTX-LABEL: .entry softmax_bf16_k0
// PTX: rcp.rn.f32
// PTX-NOT: div.rn.f32
// PTX: ret;
func.func @softmax_bf16(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = fuse.softmax %x axis = 1 : tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

// Elements divided by elements, and a per-row value divided by another:
// IEEE division each.
// CHECK-LABEL: gpu.func @elementwise_divisor_k0
// CHECK-NOT: math.fma
// CHECK: arith.divf
// CHECK-NOT: math.fma
// CHECK: gpu.return
func.func @elementwise_divisor(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = fuse.reduce_sum %x axes = [1] keepdims : tensor<64x64xf32> -> tensor<64x1xf32>
  %q = fuse.div %x, %y : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = fuse.mul %q, %s : (tensor<64x64xf32>, tensor<64x1xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
