// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu=vectors-per-thread=1 | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=TWO
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=vectors-per-thread=1 numerics=strict" | FileCheck %s --check-prefix=STRICT
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=numerics=exact" 2>&1 | FileCheck %s --check-prefix=BADMODE
// BADMODE: error: convert-fuse-to-gpu: numerics=exact: expected default or strict

// An f32 kernel moves 16-byte vectors: 4 lanes. The full-shape input is
// loaded at the vector's index, the row-vector bias contiguously at the
// column index (one remainder by a constant per vector), and the group
// records its kernel and launch configuration: 8192*64/4 vectors in
// 512 blocks of 256 threads.
// CHECK-LABEL: func.func @bias_tanh
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 512, 1, 1>, fuse.kernel = @opfuse_kernels::@bias_tanh_k0}
// CHECK: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90">]
// CHECK: gpu.func @bias_tanh_k0(%[[X:.*]]: !llvm.ptr<1>, %[[B:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %c131072_i32
// CHECK: scf.if %[[OK]]
// CHECK: %[[BASE:.*]] = arith.muli %{{.*}}, %c4_i32
// CHECK: llvm.getelementptr %[[X]][%[[BASE]]]
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[COL:.*]] = arith.remui %[[BASE]], %c64_i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: math.tanh
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// With two vectors per thread (the default) this kernel keeps one: its
// 131072 vectors, two a thread, would fill a quarter of the H200's thread
// slots (132 SMs x 2048), and a grid that small has all its loads in flight
// at once anyway.
// TWO-LABEL: func.func @bias_tanh
// TWO: fuse.grid = array<i64: 512, 1, 1>
func.func @bias_tanh(%x: tensor<8192x64xf32>, %b: tensor<64xf32>) -> tensor<8192x64xf32> {
  %0 = fuse.add %x, %b : (tensor<8192x64xf32>, tensor<64xf32>) -> tensor<8192x64xf32>
  %1 = fuse.tanh %0 : tensor<8192x64xf32>
  return %1 : tensor<8192x64xf32>
}

// -----

// A kernel large enough to fill the GPU's thread slots at two vectors a
// thread: a block covers 512 vectors, 2048 blocks, no bounds guard (the
// vectors fill whole blocks), and both vectors' loads come before any
// arithmetic.
// TWO-LABEL: func.func @bias_tanh_large
// TWO: fuse.grid = array<i64: 2048, 1, 1>
// TWO-LABEL: gpu.func @bias_tanh_large_k0
// TWO-NOT: scf.if
// TWO: arith.muli %{{.*}}, %c512_i32
// TWO-COUNT-2: llvm.load
// TWO: %[[V1:.*]] = arith.addi %{{.*}}, %c256_i32
// TWO-COUNT-2: llvm.load
// TWO: math.tanh
// TWO-COUNT-2: llvm.store
// TWO: gpu.return
func.func @bias_tanh_large(%x: tensor<65536x64xf32>, %b: tensor<64xf32>) -> tensor<65536x64xf32> {
  %0 = fuse.add %x, %b : (tensor<65536x64xf32>, tensor<64xf32>) -> tensor<65536x64xf32>
  %1 = fuse.tanh %0 : tensor<65536x64xf32>
  return %1 : tensor<65536x64xf32>
}

// -----

// Ragged and unrolled: 4097 x 1023 f32 is 1047807 vectors and 3 elements.
// Blocks of 512 vectors need 2047 blocks, the last one partly past the
// end: each vector's index is clamped to the last vector (1047806) for its
// loads, which stay unconditional and come before the arithmetic, and only
// its store is guarded. The tail's three elements go to the one thread
// whose second vector would be the one after the last: block 2046, thread
// 255, whose first vector is 2046 x 512 + 255 = 1047807.
// TWO-LABEL: func.func @ragged_unrolled
// TWO: fuse.grid = array<i64: 2047, 1, 1>
// TWO-LABEL: gpu.func @ragged_unrolled_k0
// TWO: %[[FIRST:.*]] = arith.addi
// TWO: arith.minui %{{.*}}, %c1047806_i32
// TWO: llvm.load
// TWO: arith.minui %{{.*}}, %c1047806_i32
// TWO: llvm.load
// TWO: %[[IN0:.*]] = arith.cmpi ult, %{{.*}}, %c1047807_i32
// TWO: math.exp
// TWO: scf.if %[[IN0]]
// TWO: llvm.store
// TWO: %[[IN1:.*]] = arith.cmpi ult, %{{.*}}, %c1047807_i32
// TWO: math.exp
// TWO: scf.if %[[IN1]]
// TWO: llvm.store
// TWO: %[[TAIL:.*]] = arith.cmpi eq, %[[FIRST]], %c1047807_i32
// TWO: scf.if %[[TAIL]]
// TWO-COUNT-3: llvm.store %{{.*}} : f32, !llvm.ptr<1>
func.func @ragged_unrolled(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.exp %x : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}

// -----

// Enough vectors (749874 and a tail of 7) to fill the GPU at two a thread,
// but 1465 unrolled blocks would fill the last of two waves (1056 blocks
// of 256 threads on the H200's 132 SMs) to 39%, where 2930 blocks of one
// vector a thread fill the last of three to 77%: one vector a thread.
// TWO-LABEL: func.func @last_wave
// TWO: fuse.grid = array<i64: 2930, 1, 1>
func.func @last_wave(%a: tensor<1999x3001xf16>, %b: tensor<1999x3001xf16>) -> tensor<1999x3001xf16> {
  %0 = fuse.add %a, %b : (tensor<1999x3001xf16>, tensor<1999x3001xf16>) -> tensor<1999x3001xf16>
  return %0 : tensor<1999x3001xf16>
}

// -----

// bf16 moves 8 lanes per vector and computes in f32; a column vector
// ([4, 1]) is one scalar load per vector; a splat constant becomes an f32
// constant; i1 is stored as bytes.
// CHECK-LABEL: gpu.func @column_k0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK: %[[ROW:.*]] = arith.divui
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<8xi8>
// With numerics=strict every bf16 result rounds where it is computed: the
// product before the add (loaded values are exact already), the sum before
// it is compared and stored.
// STRICT-LABEL: gpu.func @column_k0
// STRICT: %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// STRICT-NEXT: %[[C:.*]] = arith.extf %{{.*}} : bf16 to f32
// STRICT-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[C]] : f32
// STRICT-NEXT: %[[PR:.*]] = arith.truncf %[[P]] : f32 to bf16
// STRICT-NEXT: %[[PE:.*]] = arith.extf %[[PR]] : bf16 to f32
// STRICT-NEXT: arith.constant 2.000000e+00 : f32
// STRICT-NEXT: %[[S:.*]] = arith.addf %[[PE]], %{{.*}} : f32
// STRICT-NEXT: arith.truncf %[[S]] : f32 to bf16
func.func @column(%x: tensor<4x16xbf16>, %c: tensor<4x1xbf16>) -> (tensor<4x16xbf16>, tensor<4x16xi1>) {
  %two = fuse.constant dense<2.0> : tensor<bf16>
  %0 = fuse.mul %x, %c : (tensor<4x16xbf16>, tensor<4x1xbf16>) -> tensor<4x16xbf16>
  %1 = fuse.add %0, %two : (tensor<4x16xbf16>, tensor<bf16>) -> tensor<4x16xbf16>
  %2 = fuse.compare gt, %1, %x : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xi1>
  return %1, %2 : tensor<4x16xbf16>, tensor<4x16xi1>
}

// -----

// A ragged shape keeps full-width vectors over the flat index: 21 elements
// are 5 vectors of 4, and the thread after them runs the last element.
// CHECK-LABEL: gpu.func @odd_k0
// CHECK: %[[ID:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[ID]], %c5_i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: arith.cmpi eq, %[[ID]], %c5_i32
// CHECK: %[[LAST:.*]] = llvm.getelementptr %arg0[%c20_i32]
// CHECK-NEXT: llvm.load %[[LAST]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @odd(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %0 = fuse.exp %x : tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// A bias along ragged rows of 7: x is read 4 lanes at a time, the bias lane
// by lane (a vector crosses rows). The vector's first column is divided out
// once; lane k reads the next row where that column is at least 7 - k. The
// tail of 1 element (21 = 5 x 4 + 1) reads its column too.
// CHECK-LABEL: gpu.func @odd_bias_k0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c7_i32
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi uge, %[[COL]], %c6_i32
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi uge, %[[COL]], %c5_i32
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi uge, %[[COL]], %c4_i32
// CHECK-NOT: arith.remui
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: arith.cmpi eq
// CHECK: arith.remui %c20_i32, %c7_i32
// CHECK: gpu.return
func.func @odd_bias(%x: tensor<3x7xf32>, %b: tensor<7xf32>) -> tensor<3x7xf32> {
  %0 = fuse.add %x, %b : (tensor<3x7xf32>, tensor<7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// A mask of 2 x 5 over 2 x 2 x 5: the next row's index carries into the
// mask's row (and wraps at 2) before the lanes choose between the rows.
// CHECK-LABEL: gpu.func @odd_mask_k0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[ROW:.*]] = arith.remui %{{.*}}, %c2_i32
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c5_i32
// CHECK: arith.cmpi uge, %[[COL]], %c4_i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[ROW]], %c1_i32
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c2_i32
// CHECK: arith.select %[[WRAP]], %c0_i32{{.*}}, %[[NEXT]]
// CHECK: arith.cmpi uge, %[[COL]], %c3_i32
// CHECK: arith.cmpi uge, %[[COL]], %c2_i32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @odd_mask(%x: tensor<2x2x5xf32>, %m: tensor<2x5xf32>) -> tensor<2x2x5xf32> {
  %0 = fuse.add %x, %m : (tensor<2x2x5xf32>, tensor<2x5xf32>) -> tensor<2x2x5xf32>
  return %0 : tensor<2x2x5xf32>
}

// -----

// Rows of 3, shorter than a vector of 4, are left more than once a vector:
// each lane's column is divided out on its own.
// CHECK-LABEL: gpu.func @short_rows_k0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: arith.remui %{{.*}}, %c3_i32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @short_rows(%x: tensor<5x3xf32>, %w: tensor<3xf32>) -> tensor<5x3xf32> {
  %0 = fuse.mul %x, %w : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Without fuse-elementwise every elementwise op is wrapped in a group of
// one; reshapes need no kernel.
// RUN: opfuse-opt %s -split-input-file -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=UNFUSED
// UNFUSED-LABEL: func.func @two_ops
// UNFUSED: fuse.group{{.*}}fuse.kernel = @opfuse_kernels::@two_ops_k0
// UNFUSED: fuse.reshape
// UNFUSED: fuse.group{{.*}}fuse.kernel = @opfuse_kernels::@two_ops_k1
// UNFUSED: gpu.func @two_ops_k0
// UNFUSED: gpu.func @two_ops_k1
// TWO-LABEL: func.func @two_ops
func.func @two_ops(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = fuse.exp %x : tensor<4x8xf32>
  %1 = fuse.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  %2 = fuse.neg %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// Through a reshape: the full-size input is read linearly, the row bias in
// the [64, 32] layout (remainder by 32) and the bias after the reshape in the
// [64, 4, 8] layout (remainder by 8), each with 4-lane vectors.
// CHECK-LABEL: gpu.func @reshaped_k0
// CHECK-DAG: arith.remui %{{.*}}, %c32_i32
// CHECK-DAG: arith.remui %{{.*}}, %c8_i32
// CHECK-NOT: vector<1x
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>
func.func @reshaped(%x: tensor<64x32xf32>, %rowb: tensor<32xf32>, %b: tensor<8xf32>) -> tensor<64x4x8xf32> {
  %0 = fuse.add %x, %rowb : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = fuse.reshape %0 : tensor<64x32xf32> -> tensor<64x4x8xf32>
  %2 = fuse.mul %1, %b : (tensor<64x4x8xf32>, tensor<8xf32>) -> tensor<64x4x8xf32>
  return %2 : tensor<64x4x8xf32>
}

// -----

// A group that arrives with a `fuse.tensor_maps` list (from an earlier
// compile) leaves without it: the loop kernel reads no tensor maps.
// CHECK-LABEL: func.func @stale_maps
// CHECK: fuse.group
// CHECK-NOT: fuse.tensor_maps
// CHECK: gpu.module
func.func @stale_maps(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = fuse.group(%x) {fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [1024, 1], strides = [2048], box = [64, 1]>]} : (tensor<1024xf32>) -> tensor<1024xf32> {
  ^bb0(%a: tensor<1024xf32>):
    %1 = fuse.exp %a : tensor<1024xf32>
    fuse.yield %1 : tensor<1024xf32>
  }
  return %0 : tensor<1024xf32>
}

// -----

// tanh, alone or in GELU, uses the SM's tanh.approx.f32 where its result is
// bf16 (relative error ~1e-5, far below bf16's 2^-9), and libdevice's
// tanh (math.tanh here) for f16 and f32 results. GELU is h + h t with
// h = x / 2 and t = tanh(x (c + 0.044715 c x^2)), c = sqrt(2/pi).
// CHECK-LABEL: gpu.func @tanh_types_k0
// CHECK: %[[H:.*]] = arith.mulf %cst{{.*}}, %[[X:.*]] : f32
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[S:.*]] = math.fma %[[X2]], %cst{{.*}}, %cst{{.*}} : f32
// CHECK: %[[U:.*]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK: %[[T:.*]] = llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[U]] : (f32) -> f32
// CHECK: math.fma %[[H]], %[[T]], %[[H]] : f32
// CHECK: llvm.inline_asm "tanh.approx.f32
// CHECK: math.tanh
// CHECK: math.tanh
// CHECK-NOT: tanh.approx
// CHECK: gpu.return
func.func @tanh_types(%x: tensor<256xbf16>, %h: tensor<256xf16>, %f: tensor<256xf32>) -> (tensor<256xbf16>, tensor<256xbf16>, tensor<256xf16>, tensor<256xf32>) {
  %0 = fuse.gelu %x approximate = tanh : tensor<256xbf16>
  %1 = fuse.tanh %x : tensor<256xbf16>
  %2 = fuse.gelu %h approximate = tanh : tensor<256xf16>
  %3 = fuse.tanh %f : tensor<256xf32>
  return %0, %1, %2, %3 : tensor<256xbf16>, tensor<256xbf16>, tensor<256xf16>, tensor<256xf32>
}

// -----

// A row reduction's bf16 result rounds before what reads it in strict mode
// (random graph 2039: the sum compared with a max of itself came out
// greater, unrounded against rounded); by default it stays in f32.
// CHECK-LABEL: gpu.func @sum_compare_k0
// CHECK: gpu.shuffle
// CHECK-NOT: arith.truncf
// CHECK: arith.cmpf ogt
// STRICT-LABEL: gpu.func @sum_compare_k0
// STRICT: gpu.shuffle
// STRICT: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// STRICT-NEXT: %[[S:.*]] = arith.extf %[[R]] : bf16 to f32
// STRICT: arith.cmpf ogt, %[[S]], %{{.*}} : f32
func.func @sum_compare(%x: tensor<8x64xbf16>, %t: tensor<8x1xbf16>) -> tensor<8x1xi1> {
  %s = fuse.reduce_sum %x axes = [1] keepdims : tensor<8x64xbf16> -> tensor<8x1xbf16>
  %c = fuse.compare gt, %s, %t : (tensor<8x1xbf16>, tensor<8x1xbf16>) -> tensor<8x1xi1>
  return %c : tensor<8x1xi1>
}
