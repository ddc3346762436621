// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s
// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=GROUPED
// RUN: opfuse-opt %S/Inputs/depthwise-7x7.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=1" | FileCheck %s --check-prefix=WINDOWS
// RUN: opfuse-opt %S/Inputs/depthwise-3x3.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=1" | FileCheck %s --check-prefix=WINDOWS3
// RUN: opfuse-opt %S/Inputs/depthwise-7x7.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=AUTO7
// RUN: opfuse-opt %S/Inputs/depthwise-3x3.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=AUTO3
// RUN: opfuse-opt %S/Inputs/grouped-3x3.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=1" | FileCheck %s --check-prefix=GROUPED4
// RUN: opfuse-opt %S/Inputs/depthwise-3x3-ragged.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=4" | FileCheck %s --check-prefix=RAGGED
// RUN: opfuse-opt %S/Inputs/depthwise-7x7.mlir -fuse-decompose -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=4" | FileCheck %s --check-prefix=ROWS4
// RUN: opfuse-opt %s -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=window-rows=4" | FileCheck %s

// A 3x3 conv2d with bias + relu is one implicit-GEMM kernel: M = 2*14*14
// = 392 output pixels, N = 64 filters, K = 3*3*64. The tile model picks
// one warpgroup per 64x64 tile (7 tiles, 4 stages of (64 + 64) x 64 bf16
// = 64 KiB, and 64 bytes of stage barriers): wider tiles would only pad
// this small M. The input window is a gather, so cp.async copies it (no
// tensor map). A's copies decompose the pixel and the tap with constant
// divisors, check the tap is inside the image (signed: padding makes rows
// and columns negative) and copy 16 bytes of channels or zeros; the
// epilogue reads the bias at the filter index and stores 16 bytes a
// thread (64 filters: rows of 8-element multiples).
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<cooperative, cp_async>, fuse.grid = array<i64: 7, 1, 1>, fuse.kernel = @opfuse_kernels::@conv_bias_relu_k0, fuse.matmul_tiling = #fuse.tiling<"wgmma:64x64x64/1x1/4">, fuse.shared_bytes = 65600 : i64}
// CHECK: fuse.conv2d
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.relu
// CHECK: gpu.func @conv_bias_relu_k0
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK: arith.maximumf
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<1>
func.func @conv_bias_relu(%x: tensor<2x14x14x64xbf16>, %w: tensor<64x3x3x64xbf16>, %b: tensor<64xbf16>) -> tensor<2x14x14x64xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
      : (tensor<2x14x14x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<2x14x14x64xbf16>
  %1 = fuse.add %0, %b : (tensor<2x14x14x64xbf16>, tensor<64xbf16>) -> tensor<2x14x14x64xbf16>
  %2 = fuse.relu %1 : tensor<2x14x14x64xbf16>
  return %2 : tensor<2x14x14x64xbf16>
}

// A grouped conv2d of 3x3 taps over 32 channels a group (288 products an
// output) is one GEMM per group: 4 groups of M = 392, N = 32 filters,
// K = 3*3*32, so 7 tiles of 64 rows a group. Group g's copies start at its
// first channel (g * 32) of each pixel of 128, its filters' rows
// g * 32 * 288 values into the filter, and its epilogue reads the bias and
// stores at column g * 32 of each output row of 128.
// GROUPED: func.func @grouped_conv_bias
// GROUPED: fuse.group({{.*}}) {{{.*}}fuse.grid = array<i64: 28, 1, 1>{{.*}}fuse.matmul_tiling = #fuse.tiling<"wgmma:64x64x64/1x1/4">
// GROUPED: fuse.conv2d {{.*}} groups = 4
// GROUPED: gpu.func @grouped_conv_bias_k0
// GROUPED: arith.muli %[[GROUP:[0-9]+]], %c32_i32 : i32
// GROUPED: arith.muli %[[GROUP]], %c9216_i32 : i32
// GROUPED: scf.for
// GROUPED-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// GROUPED: arith.muli %{{[0-9]+}}, %c32_i32_{{[0-9]+}} : i32
// GROUPED: arith.muli %{{[0-9]+}}, %c128_i32{{.*}} : i32
func.func @grouped_conv_bias(%x: tensor<2x14x14x128xbf16>, %w: tensor<128x3x3x32xbf16>, %b: tensor<128xbf16>) -> tensor<2x14x14x128xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 4
      : (tensor<2x14x14x128xbf16>, tensor<128x3x3x32xbf16>) -> tensor<2x14x14x128xbf16>
  %1 = fuse.add %0, %b : (tensor<2x14x14x128xbf16>, tensor<128xbf16>) -> tensor<2x14x14x128xbf16>
  return %1 : tensor<2x14x14x128xbf16>
}

// window-rows=1 (one output a thread), first. A loop kernel of many loads
// gets the arithmetic on them after every 16
// (the canonical order's load batch): the 7x7 depthwise convolution's 49
// taps (98 loads of input windows and weights) would otherwise be loaded
// all before any product, which spilled 2.7 KB a thread at 112x112.
// The sum of the taps' products is the convolution's own (fuse.contract):
// each product after the first is an FMA, as in the convolution's GEMM
// kernels. At 98 loads a vector, each thread owns one vector (2048 vectors:
// 8 blocks of 256), not two (4 blocks): a second would double the
// registers for no more loads in flight.
// WINDOWS: fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_7x7_k0
// WINDOWS-LABEL: gpu.func @depthwise_7x7_k0
// WINDOWS-COUNT-16: llvm.load
// WINDOWS-NOT: llvm.load
// WINDOWS: arith.mulf
// WINDOWS: math.fma
// WINDOWS-COUNT-16: llvm.load
// WINDOWS-NOT: llvm.load
// WINDOWS: math.fma
// WINDOWS-NOT: arith.addf
// WINDOWS: llvm.store

// A 3x3 depthwise convolution reads 18 loads a vector (9 windows, 9 taps'
// weights): each thread keeps two vectors, their loads in flight together.
// WINDOWS3: fuse.grid = array<i64: 4, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_3x3_k0
// WINDOWS3-LABEL: gpu.func @depthwise_3x3_k0
// WINDOWS3-COUNT-36: llvm.load
// WINDOWS3-NOT: llvm.load
// WINDOWS3-NOT: arith.addf
// WINDOWS3: llvm.store

// window-rows=4: a thread computes 4 neighbouring outputs of a row, columns
// 4c to 4c + 3 (2048 vectors: 2 blocks of 256 threads); the loads they
// share are merged later, by LLVM (opt-fuse/window-rows.test counts them).
// Kernels that read no windows (the GEMMs above) do not change.
// ROWS4: fuse.grid = array<i64: 2, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_7x7_k0
// ROWS4-LABEL: gpu.func @depthwise_7x7_k0
// ROWS4: %[[ITEM:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// ROWS4: %[[FOUR:.*]] = arith.constant 4 : i32
// ROWS4: %[[FIRST:.*]] = arith.muli %[[ITEM]], %[[FOUR]] : i32
// ROWS4-COUNT-4: arith.addi %[[FIRST]], %{{.*}} : i32
// ROWS4-NOT: arith.addi %[[FIRST]],
// ROWS4-COUNT-4: llvm.store
// ROWS4-NOT: llvm.store
// ROWS4: gpu.return

// By default the emitter chooses the rows: 4 where the distinct window
// columns of one row of taps, 8 bf16 lanes each, number at most 64, else 2.
// The 7x7: 10 columns at 4 rows (80 values), 8 at 2 (64): 2 rows, 1024
// threads (4 blocks), 2 stores. The 3x3: 6 columns at 4 rows (48): 4 rows,
// 512 threads (2 blocks), 4 stores.
// AUTO7: fuse.grid = array<i64: 4, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_7x7_k0
// AUTO7-LABEL: gpu.func @depthwise_7x7_k0
// AUTO7: arith.muli %{{.*}}, %c2_i32 : i32
// AUTO7-COUNT-2: llvm.store
// AUTO7-NOT: llvm.store
// AUTO3: fuse.grid = array<i64: 2, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_3x3_k0
// AUTO3-LABEL: gpu.func @depthwise_3x3_k0
// AUTO3: arith.muli %{{.*}}, %c4_i32 : i32
// AUTO3-COUNT-4: llvm.store
// AUTO3-NOT: llvm.store

// A row of 7 columns at 4 rows: 2 items a row (6 rows x 2 items x 2
// vectors = 24 threads). An item wholly inside its row (first column + 4
// <= 7) computes its 4 neighbours together; the row's last item computes
// neighbour 0, then each other one only where it is inside the row.
// RAGGED: fuse.grid = array<i64: 1, 1, 1>, fuse.kernel = @opfuse_kernels::@depthwise_3x3_ragged_k0
// RAGGED-LABEL: gpu.func @depthwise_3x3_ragged_k0
// RAGGED: arith.cmpi ult, %{{.*}}, %c24_i32 : i32
// RAGGED: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4_i32 : i32
// RAGGED: %[[END:.*]] = arith.addi %[[FIRST]], %{{.*}} : i32
// RAGGED: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %c7_i32 : i32
// RAGGED: scf.if %[[WHOLE]] {
// RAGGED-COUNT-4: llvm.store
// RAGGED-NOT: scf.if
// RAGGED: } else {
// RAGGED-NOT: scf.if
// RAGGED: llvm.store
// RAGGED-NOT: llvm.store
// RAGGED: %[[SECOND:.*]] = arith.addi %[[FIRST]], %c1_i32{{.*}} : i32
// RAGGED: %[[INSIDE:.*]] = arith.cmpi ult, %[[SECOND]], %c7_i32{{.*}} : i32
// RAGGED: scf.if %[[INSIDE]] {
// RAGGED: llvm.store
// RAGGED: arith.addi %[[FIRST]], %c2_i32
// RAGGED: scf.if
// RAGGED: llvm.store
// RAGGED: arith.addi %[[FIRST]], %c3_i32
// RAGGED: scf.if
// RAGGED: llvm.store
// RAGGED-NOT: llvm.store
// RAGGED: gpu.return

// Groups of 4 channels: output channel o sums the windows of input
// channels (o / 4) * 4 + ci, a gather along the vector's axis. Every vector
// of 4 output channels reads only its own 4 input channels (lane l reads
// channel ci of them): the window is loaded as a vector and its lanes
// permuted, not loaded lane by lane. 9 windows and 36 taps' weights, all
// 8-byte vectors.
// GROUPED4-LABEL: gpu.func @grouped_3x3_k0
// GROUPED4-NOT: -> bf16
// GROUPED4-COUNT-45: llvm.load {{.*}} -> vector<4xbf16>
// GROUPED4-NOT: llvm.load
// GROUPED4: gpu.return
