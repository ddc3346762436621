// RUN: opfuse-opt %s -fuse-approximate-math | FileCheck %s

// Without libdevice the transcendentals become arithmetic: no math.exp,
// math.tanh, math.erf or math.powf is left for convert-gpu-to-nvvm to turn
// into __nv_* calls.
// CHECK-LABEL: func.func @transcendentals
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.powf
// CHECK: return
func.func @transcendentals(%x: f32, %y: f32) -> (f32, f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.tanh %x : f32
  %2 = math.erf %x : f32
  %3 = math.powf %x, %y : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
