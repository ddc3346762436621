// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels | FileCheck %s
// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels | FileCheck %s --check-prefix=KEPT

// The kernel module becomes PTX as with gpu-module-to-binary{format=isa},
// except that signed i32 and i16 min/max reach the NVPTX backend as
// unsigned ones on sign-flipped operands (xor, or sub from 0x80000000 where
// LLVM folds a negation into the flip): CUDA 13.0's ptxas drops a negation
// it folds into a signed three-input VIMNMX3, so max(a, -b, c) came out as
// max(a, b, c). i64 and unsigned min/max are left alone.

// CHECK: gpu.binary @kernels
// CHECK-NOT: max.s32
// CHECK-NOT: min.s32
// CHECK-NOT: max.s16
// CHECK-NOT: min.s16

// KEPT-DAG: max.u32
// KEPT-DAG: min.u32
// KEPT-DAG: max.s64
// KEPT-DAG: min.u16
// KEPT-DAG: -2147483648

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    llvm.func @minmax(%out: !llvm.ptr<1>, %a: i32, %b: i32, %c: i32, %h: i16, %k: i16, %x: i64, %y: i64, %u: i32) attributes {gpu.kernel, nvvm.kernel} {
      // The seed-15745 shape: max(a, -b, c), which ptxas miscompiled.
      %zero = llvm.mlir.constant(0 : i32) : i32
      %nb = llvm.sub %zero, %b : i32
      %m0 = llvm.intr.smax(%a, %nb) : (i32, i32) -> i32
      %m1 = llvm.intr.smax(%m0, %c) : (i32, i32) -> i32
      llvm.store %m1, %out : i32, !llvm.ptr<1>
      %n0 = llvm.intr.smin(%a, %c) : (i32, i32) -> i32
      %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
      llvm.store %n0, %p1 : i32, !llvm.ptr<1>
      %h0 = llvm.intr.smin(%h, %k) : (i16, i16) -> i16
      %p2 = llvm.getelementptr %out[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i16
      llvm.store %h0, %p2 : i16, !llvm.ptr<1>
      %h1 = llvm.intr.smax(%h, %k) : (i16, i16) -> i16
      %p3 = llvm.getelementptr %out[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i16
      llvm.store %h1, %p3 : i16, !llvm.ptr<1>
      %w = llvm.intr.smax(%x, %y) : (i64, i64) -> i64
      %p4 = llvm.getelementptr %out[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
      llvm.store %w, %p4 : i64, !llvm.ptr<1>
      %v = llvm.intr.umax(%u, %a) : (i32, i32) -> i32
      %p5 = llvm.getelementptr %out[6] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
      llvm.store %v, %p5 : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Several kernels are compiled in parts and merged: one header, every
// kernel, the shared-memory declaration both parts make kept once.
// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels | FileCheck %s --check-prefix=PARTS
// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels --mlir-disable-threading | FileCheck %s --check-prefix=PARTS
// PARTS: gpu.binary @parts {{.*}}merged by opfuse{{.*}}.version 7.8{{.*}}.extern .shared .align 16 .b8 shared_bytes[];{{.*}}.entry first({{.*}}.entry second({{.*}}.entry third(
// One header per binary (two binaries in this file), one declaration:
// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels | grep -o '[.]version' | wc -l | FileCheck %s --check-prefix=TWO
// TWO: {{^}}2{{$}}
// RUN: opfuse-opt %s --split-input-file --fuse-serialize-kernels | grep -o 'extern .shared .align 16' | wc -l | FileCheck %s --check-prefix=ONCE
// ONCE: {{^}}1{{$}}
module attributes {gpu.container_module} {
  gpu.module @parts [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global external @shared_bytes() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @first(%out: !llvm.ptr<1>, %a: f32) attributes {gpu.kernel, nvvm.kernel} {
      %s = llvm.mlir.addressof @shared_bytes : !llvm.ptr<3>
      llvm.store %a, %s : f32, !llvm.ptr<3>
      %v = llvm.load %s : !llvm.ptr<3> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @second(%out: !llvm.ptr<1>, %a: f32) attributes {gpu.kernel, nvvm.kernel} {
      %s = llvm.mlir.addressof @shared_bytes : !llvm.ptr<3>
      llvm.store %a, %s : f32, !llvm.ptr<3>
      %v = llvm.load %s : !llvm.ptr<3> -> f32
      %w = llvm.fadd %v, %a : f32
      llvm.store %w, %out : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @third(%out: !llvm.ptr<1>, %a: f32) attributes {gpu.kernel, nvvm.kernel} {
      %w = llvm.fmul %a, %a : f32
      llvm.store %w, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}


// A kernel module without a target cannot be serialised: a located error.
// RUN: not opfuse-opt %S/Inputs/serialize-no-target.mlir --fuse-serialize-kernels 2>&1 | FileCheck %s --check-prefix=NOTARGET
// NOTARGET: serialize-no-target.mlir:{{[0-9]+}}:{{[0-9]+}}: error: fuse-serialize-kernels: a kernel module needs exactly one target
