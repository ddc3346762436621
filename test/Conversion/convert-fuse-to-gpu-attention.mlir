// The fused attention kernel (lib/Conversion/FuseToGPU/Attention*.cpp):
// fusion gives fuse.attention one kernel with the head-splitting views it
// reads q, k and v through and the head merge it stores through; the
// online softmax stays in registers (maxima and sums across a quad by XOR
// shuffles, exponentials as ex2.approx), and a causal block stops at its
// last visible key tile.
// - mma.sync tiles (BMxBN, 4 warps): every thread copies the Q tile and
//   two stages of K and V with cp.async; S = Q Kᵀ and O += P V are
//   mma.sync on ldmatrix fragments (V through ldmatrix.trans), P never
//   leaving registers.
// - wgmma tiles (wgmma:BMxBN, the default on sm_90 for head dims that are
//   multiples of 64 with tma=false): a warpgroup per 64 query rows, both
//   products wgmma batches from swizzled shared memory, each warpgroup's P
//   written to its own tile first (a proxy fence and the warpgroup's named
//   barrier); the kernel module targets sm_90a.
// - TMA-fed tiles (tma:BMxBN, the default on sm_90 where the operands'
//   tensor maps exist): a producer warpgroup (registers given up with
//   setmaxnreg) copies Q, K and V by TMA through mbarrier rings, named by
//   three tensor maps after the buffers; each consumer warpgroup issues
//   S_j and P_{j-1} V_{j-1} (P from registers: the wgmma register form,
//   written as PTX) in its ping-pong turn (a named barrier waited for and
//   arrived at) and waits for S_j alone (wait_group 1) before its softmax;
//   at head dim 64 three consumer warpgroups (tma:192x128) pass the turn
//   round.
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=128x64" | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=64x32" | FileCheck %s --check-prefix=TILED
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=tma=false" | FileCheck %s --check-prefix=WGMMA
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=TMA
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=DECODE
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:64x128" | FileCheck %s --check-prefix=KVCACHE
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=wgmma:64x64/k2" | FileCheck %s --check-prefix=SPLIT
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=64x32/k3" | FileCheck %s --check-prefix=SPLIT-FORCED
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=wgmma:64x64/k0" 2>&1 | FileCheck %s --check-prefix=SPLIT-ZERO
// SPLIT-ZERO: error: convert-fuse-to-gpu: attention-tiling: 'wgmma:64x64/k0': the key split must be kS with S from 1 to 64 (e.g. wgmma:64x64/k4)
// Auto splits a decode step's keys on the TMA-fed kernel where it can: 4
// query tiles, 5 key tiles of 128 in 2 splits of 2 and 3. The tensor maps
// come first after the buffers, then the workspace and the counters; the
// block's compute threads (not the producer warpgroup, which has left)
// meet at named barrier 3 around the count.
// RUN: opfuse-opt %S/Inputs/attention-decode-split.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=SPLIT-TMA
// SPLIT-TMA: fuse.group({{.*}}) {fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, {{.*}}fuse.split_workspace = array<i64: 2, 4, 2112>, fuse.tensor_maps = [#fuse.tensor_map<input = 4, {{.*}}>, #fuse.tensor_map<input = 0, {{.*}}>, #fuse.tensor_map<input = 1, {{.*}}>, #fuse.tensor_map<input = 2, {{.*}}>, #fuse.tensor_map<input = 3, {{.*}}>]}
// SPLIT-TMA: gpu.func @decode_cache_k0(%{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %[[WORKSPACE:[^:]*]]: !llvm.ptr<1>, %[[COUNTERS:[^:]*]]: !llvm.ptr<1>)
// SPLIT-TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global
// SPLIT-TMA: llvm.getelementptr %[[WORKSPACE]]
// SPLIT-TMA: %[[THREE:.*]] = llvm.mlir.constant(3 : i32) : i32
// SPLIT-TMA: %[[COMPUTE:.*]] = llvm.mlir.constant(128 : i32) : i32
// SPLIT-TMA: nvvm.barrier id = %[[THREE]] number_of_threads = %[[COMPUTE]]
// SPLIT-TMA: llvm.getelementptr %[[COUNTERS]]
// SPLIT-TMA: llvm.atomicrmw add
// SPLIT-TMA: llvm.load volatile
// A TMA-fed split needs a key tile for every split and no causal mask.
// RUN: not opfuse-opt %S/Inputs/attention-decode-split.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:64x128/k6" 2>&1 | FileCheck %s --check-prefix=SPLIT-TMA-MANY
// SPLIT-TMA-MANY: attention-decode-split.mlir:7:8: error: attention-tiling: 6 splits of 5 key tiles of 128: a TMA-fed kernel needs a key tile for every split
// RUN: not opfuse-opt %S/Inputs/attention-decode-causal.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:64x64/k2" 2>&1 | FileCheck %s --check-prefix=SPLIT-CAUSAL
// SPLIT-CAUSAL: attention-decode-causal.mlir:5:8: error: attention-tiling: a TMA-fed kernel splits the keys only without a causal mask (which may leave a split no key); use wgmma: or mma.sync tiles
// Auto on the causal chunk: split on the cp.async-fed kernel instead
// (4 query tiles, 5 key tiles of 64: 2 splits; 16 rows a block).
// RUN: opfuse-opt %S/Inputs/attention-decode-causal.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=SPLIT-CAUSAL-AUTO
// SPLIT-CAUSAL-AUTO: fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, {{.*}}fuse.split_workspace = array<i64: 2, 4, 33792>}
// SPLIT-CAUSAL-AUTO-NOT: fuse.tensor_maps
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=tma=false" | FileCheck %s --check-prefix=KVCACHE-CPASYNC
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=wgmma:128x128" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:128x128" 2>&1 | FileCheck %s --check-prefix=SM80
// Views TMA cannot describe (rows of 776 bytes): tma tiles are an error,
// auto falls back to the cp.async-fed wgmma kernel (256 threads, no maps).
// RUN: not opfuse-opt %S/Inputs/attention-misaligned.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:128x128" 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// RUN: opfuse-opt %S/Inputs/attention-misaligned.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=FALLBACK
// A joined K whose cache is not whole key tiles: tma tiles are an error
// naming the row, auto falls back to the cp.async-fed kernel (no maps).
// RUN: not opfuse-opt %S/Inputs/attention-kv-ragged.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:64x64" 2>&1 | FileCheck %s --check-prefix=KV-RAGGED
// RUN: opfuse-opt %S/Inputs/attention-kv-ragged.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=KV-RAGGED-AUTO
// The block order: without a causal mask one head's query tiles are
// neighbours in the grid (the tile within the head is the block index mod
// 2 tiles, the pair its quotient); under a causal mask a section holds
// every pair whose K and V fit in half the L2 (all 8 here: the block
// index mod 8 pairs x 2 tiles), the last query tile (the longest rows)
// of each pair first.
// RUN: opfuse-opt %S/Inputs/attention-block-order.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=ORDER
// ORDER-LABEL: gpu.func @order_k0(
// ORDER: %[[BLOCK:.*]] = arith.index_castui %block_id_x
// ORDER-NEXT: %[[TILES:.*]] = llvm.mlir.constant(2 : i32)
// ORDER-NEXT: %[[WITHIN:.*]] = arith.remui %[[BLOCK]], %[[TILES]]
// ORDER-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
// ORDER-NEXT: %[[TILE:.*]] = arith.divui %[[WITHIN]], %[[ONE]]
// ORDER-NEXT: arith.subi %{{.*}}, %[[TILE]]
// ORDER-LABEL: gpu.func @order_causal_k0(
// ORDER: %[[BLOCK:.*]] = arith.index_castui %block_id_x
// ORDER-NEXT: %[[ALL:.*]] = llvm.mlir.constant(16 : i32)
// ORDER-NEXT: %[[WITHIN:.*]] = arith.remui %[[BLOCK]], %[[ALL]]
// ORDER-NEXT: %[[PAIRS:.*]] = llvm.mlir.constant(8 : i32)
// ORDER-NEXT: %[[TILE:.*]] = arith.divui %[[WITHIN]], %[[PAIRS]]
// ORDER-NEXT: arith.subi %{{.*}}, %[[TILE]]
// Three consumer warpgroups (tma:192x128): 512 threads, the producer's
// registers down to 24 and the consumers' up to 160, boxes of 192 query
// rows, and the turn of warpgroup wg on named barrier 1 + (wg + 2) % 3
// (each passes it on at 1 + wg). Auto takes them for a long sequence at
// head dim 64, and at 4096 keys without a causal mask persistent blocks
// (one an SM).
// RUN: opfuse-opt %S/Inputs/attention-block-order.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:192x128" | FileCheck %s --check-prefix=WG3
// RUN: opfuse-opt %S/Inputs/attention-long-d64.mlir -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=WG3-AUTO
// WG3: fuse.block = array<i64: 512, 1, 1>, {{.*}}box = [64, 192, 1, 1]>
// WG3-LABEL: gpu.func @order_k0(
// WG3: nvvm.setmaxregister  decrease 24
// WG3: nvvm.setmaxregister  increase 160
// WG3: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
// WG3-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32)
// WG3-NEXT: %[[SHIFTED:.*]] = arith.addi %[[WG:.*]], %[[TWO]]
// WG3-NEXT: %[[THREE:.*]] = llvm.mlir.constant(3 : i32)
// WG3-NEXT: %[[TURN:.*]] = arith.remui %[[SHIFTED]], %[[THREE]]
// WG3-NEXT: %[[ID:.*]] = arith.addi %[[ONE]], %[[TURN]]
// WG3-NEXT: llvm.mlir.constant(256 : i32)
// WG3-NEXT: nvvm.barrier id = %[[ID]]
// WG3-AUTO: fuse.block = array<i64: 512, 1, 1>, {{.*}}fuse.grid = array<i64: 132, 1, 1>
// Persistent blocks: one an SM, each looping over query tiles grid-stride
// and carrying the K/V rings' position and the Q barriers' phase; the
// producer waits for Q's empty barrier (after the 16 of the rings) before
// copying the next Q tile, warpgroup 0 asks for the turn after the first
// tile. Tilings of one consumer warpgroup do not persist.
// RUN: opfuse-opt %S/Inputs/attention-long-d64.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:192x128/persistent" | FileCheck %s --check-prefix=PERSIST
// PERSIST: fuse.block = array<i64: 512, 1, 1>, {{.*}}fuse.grid = array<i64: 132, 1, 1>, {{.*}}fuse.shared_bytes = 155792
// PERSIST-LABEL: gpu.func @long_d64_k0(
// PERSIST-COUNT-18: nvvm.mbarrier.init
// PERSIST: nvvm.setmaxregister  decrease 24
// PERSIST: llvm.mlir.constant(1408 : i32)
// PERSIST: gpu.grid_dim  x
// PERSIST: scf.for {{.*}} iter_args(%{{.*}} = %{{[0-9]+}}, %[[COUNT:arg[0-9]+]] = %{{[0-9]+}}) -> (i32, i32)
// PERSIST-NEXT: llvm.mlir.constant(155784 : i32)
// PERSIST: %[[PARITY:.*]] = arith.remui %[[COUNT]]
// PERSIST-NEXT: llvm.mlir.constant(1 : i32)
// PERSIST-NEXT: %[[FREE:.*]] = arith.xori %[[PARITY]]
// PERSIST: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[FREE]]
// PERSIST: nvvm.mbarrier.arrive.expect_tx
// PERSIST: scf.yield %{{.*}}, %{{.*}} : i32, i32
// PERSIST: nvvm.setmaxregister  increase 160
// PERSIST: scf.for {{.*}} iter_args(%[[BASE:arg[0-9]+]] = %{{[0-9]+}}, %[[CCOUNT:arg[0-9]+]] = %{{[0-9]+}}) -> (i32, i32)
// PERSIST-NEXT: llvm.mlir.constant(155648 : i32)
// PERSIST: %[[PHASE:.*]] = arith.remui %[[CCOUNT]]
// PERSIST: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]]
// PERSIST: arith.addi %[[BASE]]
// PERSIST: %[[LATER:.*]] = arith.cmpi ne, %[[CCOUNT]]
// PERSIST-NEXT: arith.ori %{{.*}}, %[[LATER]] : i1
// RUN: not opfuse-opt %S/Inputs/attention-long-d64.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:64x128/persistent" 2>&1 | FileCheck %s --check-prefix=PERSIST-64
// PERSIST-64: attention-long-d64.mlir:4:8: error: attention-tiling: persistent blocks take 128 or 192 query rows (two or three consumer warpgroups, one block an SM)
// 192 query rows (three consumer warpgroups) take head dims up to 64.
// RUN: not opfuse-opt %S/Inputs/attention-d128.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:192x128" 2>&1 | FileCheck %s --check-prefix=WIDE-192
// WIDE-192: attention-d128.mlir:3:8: error: attention-tiling: 192 query rows (three consumer warpgroups) take head dimensions of 64 or less; this attention's are 128 and 128
// RUN: not opfuse-opt %S/Inputs/attention-block-order.mlir -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=tma:192x128/k2" 2>&1 | FileCheck %s --check-prefix=SPLIT-192
// SPLIT-192: attention-block-order.mlir:4:8: error: attention-tiling: 192 query rows take no key split (/kS splits the keys of decode steps' query tiles of 64 rows)
// KV-RAGGED: error: attention-tiling: TMA copies a joined K or V tile by tile, and a piece starts at row 100, not a multiple of 64 keys
// KV-RAGGED-AUTO: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 2, 1, 1>, fuse.kernel = @opfuse_kernels::@kv_ragged_k0, fuse.shared_bytes = 49152 : i64}
// MISALIGNED: attention-misaligned.mlir:13:8: error: attention-tiling: TMA copies q, k and v only where each starts and steps by multiples of 16 bytes
// FALLBACK: fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@misaligned_k0, fuse.shared_bytes = 65536 : i64}
// FALLBACK-NOT: fuse.tensor_maps

// WGMMA-LABEL: func.func @heads
// WGMMA: fuse.group(%arg0) {fuse.block = array<i64: 256, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@heads_k0, fuse.shared_bytes = 65536 : i64}
// WGMMA: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90a">]
// WGMMA: gpu.func @heads_k0
// WGMMA: scf.for
// WGMMA: nvvm.fence.proxy
// WGMMA: nvvm.wgmma.fence.aligned
// WGMMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WGMMA: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA: ex2.approx.ftz.f32
// WGMMA: llvm.store {{.*}} : i32, !llvm.ptr<3>
// WGMMA: nvvm.fence.proxy
// WGMMA: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// WGMMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]

// TMA-LABEL: func.func @heads
// TMA: fuse.group(%arg0) {fuse.block = array<i64: 384, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@heads_k0, fuse.shared_bytes = 147592 : i64, fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 200, 2, 2], strides = [768, 128, 153600], box = [64, 128, 1, 1]>, #fuse.tensor_map<input = 0, dims = [64, 200, 2, 2], strides = [768, 128, 153600], box = [64, 128, 1, 1], offset = 256>, #fuse.tensor_map<input = 0, dims = [64, 200, 2, 2], strides = [768, 128, 153600], box = [64, 128, 1, 1], offset = 512>]}
// TMA: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90a">]
// TMA: gpu.func @heads_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 384, 1, 1>}
// TMA-COUNT-17: nvvm.mbarrier.init
// TMA: nvvm.fence.mbarrier.init
// TMA: gpu.barrier
// TMA: nvvm.shfl.sync idx
// TMA: nvvm.setmaxregister decrease 40
// TMA: nvvm.mbarrier.arrive.expect_tx
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA: scf.for
// TMA: nvvm.mbarrier.try_wait.parity
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA: nvvm.mbarrier.try_wait.parity
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA: } else {
// TMA: nvvm.setmaxregister increase 232
// TMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// TMA: nvvm.barrier.arrive
// TMA: nvvm.wgmma.wait.group.sync.aligned 0
// TMA: nvvm.mbarrier.arrive
// TMA: ex2.approx.ftz.f32
// TMA: scf.for
// TMA: nvvm.barrier id
// TMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// TMA: nvvm.wgmma.commit.group.sync.aligned
// TMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// TMA: nvvm.wgmma.commit.group.sync.aligned
// TMA: nvvm.barrier.arrive
// TMA: nvvm.wgmma.wait.group.sync.aligned 1
// TMA: ex2.approx.ftz.f32
// TMA: nvvm.wgmma.wait.group.sync.aligned 0
// TMA-NOT: nvvm.fence.proxy
// TMA: scf.yield
// TMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM80: error: attention-tiling: wgmma and tma tiles need sm_90; the target is sm_80

// CHECK-LABEL: func.func @heads
// CHECK: fuse.group(%arg0) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@heads_k0, fuse.shared_bytes = 49152 : i64}
// CHECK-COUNT-3: fuse.slice
// CHECK-COUNT-3: fuse.reshape
// CHECK-COUNT-3: fuse.transpose
// CHECK-NEXT: fuse.attention
// CHECK-NEXT: fuse.transpose
// CHECK-NEXT: fuse.yield
// CHECK-NOT: fuse.group
// CHECK: gpu.func @heads_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) kernel
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK: nvvm.mma.sync
// CHECK: gpu.shuffle  xor
// CHECK: ex2.approx.ftz.f32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// TILED: fuse.grid = array<i64: 16, 1, 1>, {{.*}}fuse.shared_bytes = 24576 : i64
func.func @heads(%qkv: tensor<2x200x384xbf16>) -> tensor<2x200x128xbf16> {
  %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x384xbf16> -> tensor<2x200x128xbf16>
  %ks = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x384xbf16> -> tensor<2x200x128xbf16>
  %vs = fuse.slice %qkv offsets = [0, 0, 256] sizes = [2, 200, 128] strides = [1, 1, 1] : tensor<2x200x384xbf16> -> tensor<2x200x128xbf16>
  %qr = fuse.reshape %qs : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %kr = fuse.reshape %ks : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %vr = fuse.reshape %vs : tensor<2x200x128xbf16> -> tensor<2x200x2x64xbf16>
  %q = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %k = fuse.transpose %kr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %v = fuse.transpose %vr permutation = [0, 2, 1, 3] : tensor<2x200x2x64xbf16> -> tensor<2x2x200x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x2x200x64xbf16>, tensor<2x2x200x64xbf16>, tensor<2x2x200x64xbf16>) -> tensor<2x2x200x64xbf16>
  %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x2x200x64xbf16> -> tensor<2x200x2x64xbf16>
  %om = fuse.reshape %ot : tensor<2x200x2x64xbf16> -> tensor<2x200x128xbf16>
  return %om : tensor<2x200x128xbf16>
}

// -----

// Causal: the block's key tiles end at min(tiles, (first row + BM + BN -
// 1) / BN), and keys past the row are hidden by a compare and a select.
// CHECK-LABEL: func.func @causal
// CHECK: gpu.func @causal_k0
// CHECK: arith.minui
// CHECK: scf.for
// CHECK: arith.cmpi ugt
// CHECK: arith.select
func.func @causal(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16> {
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16>
  return %o : tensor<1x2x256x64xf16>
}

// -----

// A view the kernel cannot read in place (the head dimension strided by a
// transpose of the last two dimensions) stays a kernel of its own; the
// attention reads its result.
// CHECK-LABEL: func.func @strided_head
// CHECK: fuse.group
// CHECK: fuse.transpose
// CHECK: fuse.yield
// CHECK: fuse.group
// CHECK-NOT: fuse.transpose
// CHECK: fuse.attention
func.func @strided_head(%q: tensor<1x2x64x64xbf16>, %kt: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %k = fuse.transpose %kt permutation = [0, 1, 3, 2] : tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// -----

// A decode step (one query and one key per head), K through the two
// transposes a frontend's Kᵀ leaves: the unit sequence dimension places
// no row (whatever stride the views give it), so K is read through its views in place too
// and the attention is one kernel with the head split and merge.
// DECODE-LABEL: func.func @decode_heads
// DECODE: fuse.group
// DECODE-NOT: fuse.group
// DECODE: return
func.func @decode_heads(%qkv: tensor<2x1x384xbf16>) -> tensor<2x1x128xbf16> {
  %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 1, 128] strides = [1, 1, 1] : tensor<2x1x384xbf16> -> tensor<2x1x128xbf16>
  %ks = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 1, 128] strides = [1, 1, 1] : tensor<2x1x384xbf16> -> tensor<2x1x128xbf16>
  %vs = fuse.slice %qkv offsets = [0, 0, 256] sizes = [2, 1, 128] strides = [1, 1, 1] : tensor<2x1x384xbf16> -> tensor<2x1x128xbf16>
  %qr = fuse.reshape %qs : tensor<2x1x128xbf16> -> tensor<2x1x2x64xbf16>
  %kr = fuse.reshape %ks : tensor<2x1x128xbf16> -> tensor<2x1x2x64xbf16>
  %vr = fuse.reshape %vs : tensor<2x1x128xbf16> -> tensor<2x1x2x64xbf16>
  %q = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<2x1x2x64xbf16> -> tensor<2x2x1x64xbf16>
  %kt = fuse.transpose %kr permutation = [0, 2, 3, 1] : tensor<2x1x2x64xbf16> -> tensor<2x2x64x1xbf16>
  %k = fuse.transpose %kt permutation = [0, 1, 3, 2] : tensor<2x2x64x1xbf16> -> tensor<2x2x1x64xbf16>
  %v = fuse.transpose %vr permutation = [0, 2, 1, 3] : tensor<2x1x2x64xbf16> -> tensor<2x2x1x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x2x1x64xbf16>, tensor<2x2x1x64xbf16>, tensor<2x2x1x64xbf16>) -> tensor<2x2x1x64xbf16>
  %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x2x1x64xbf16> -> tensor<2x1x2x64xbf16>
  %om = fuse.reshape %ot : tensor<2x1x2x64xbf16> -> tensor<2x1x128xbf16>
  return %om : tensor<2x1x128xbf16>
}

// -----

// A KV cache joined with a decode step's new key and value by concats
// along the sequence: the concats join the attention's kernel and are
// never computed. The kernel reads each piece where it lies: with TMA a
// tensor map per piece (q, the cache and the new row of K, then of V),
// the key tile's map and its row in that piece chosen per tile (the cache
// is whole tiles of 128 keys); fed by cp.async, each row's address from
// the piece it lies in.
// KVCACHE-LABEL: func.func @kv_cache
// KVCACHE: fuse.group(%arg1, %arg3, %arg2, %arg4, %arg0) {{.*}}fuse.tensor_maps = [#fuse.tensor_map<input = 4, {{[^>]*}}>, #fuse.tensor_map<input = 0, dims = [64, 256, 2], {{[^>]*}}>, #fuse.tensor_map<input = 1, dims = [64, 1, 2], {{[^>]*}}>, #fuse.tensor_map<input = 2, dims = [64, 256, 2], {{[^>]*}}>, #fuse.tensor_map<input = 3, dims = [64, 1, 2], {{[^>]*}}>]
// KVCACHE: fuse.concat
// KVCACHE: fuse.concat
// KVCACHE: fuse.attention
// KVCACHE: gpu.func @kv_cache_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[VNEW:.*]]: !llvm.ptr<1>)
// KVCACHE: %[[IN:.*]] = arith.cmpi sge
// KVCACHE: arith.select %[[IN]], %arg8, %arg7 : !llvm.ptr<1>
// KVCACHE: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Split keys on the cp.async-fed wgmma kernel: each of the decode step's
// two query tiles (one per head) has its 5 key tiles of 64 split between
// 2 blocks (tiles [0, 2) and [2, 5)). Each stores its row's partial output
// (64 f32), maximum and sum in the workspace (4 blocks x 66 x 4 bytes)
// and counts itself done; the last of a tile's blocks reads the splits in
// order (volatile loads), rescales them to the largest maximum, puts the
// counter back to zero and runs the epilogue. The workspace and the
// counters are the kernel's last two parameters.
// SPLIT-LABEL: func.func @kv_cache
// SPLIT: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.grid = array<i64: 4, 1, 1>, fuse.kernel = @opfuse_kernels::@kv_cache_k0, fuse.shared_bytes = 49152 : i64, fuse.split_workspace = array<i64: 2, 2, 1056>}
// SPLIT-NOT: fuse.tensor_maps
// SPLIT: gpu.func @kv_cache_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[WORKSPACE:.*]]: !llvm.ptr<1>, %[[COUNTERS:.*]]: !llvm.ptr<1>)
// SPLIT: nvvm.cp.async.shared.global
// SPLIT: nvvm.wgmma.mma_async
// SPLIT: llvm.getelementptr %[[WORKSPACE]]
// SPLIT: llvm.store
// SPLIT: nvvm.memory.barrier
// SPLIT: llvm.getelementptr %[[COUNTERS]]
// SPLIT: llvm.atomicrmw add {{.*}} acq_rel
// SPLIT: scf.for
// SPLIT: llvm.load volatile
// SPLIT: ex2.approx.ftz.f32
// SPLIT: llvm.store {{.*}}, %{{.*}} : i32, !llvm.ptr<1>
// SPLIT: arith.divf
// Forced on mma.sync: 3 blocks per query tile, workspace for all six.
// SPLIT-FORCED-LABEL: func.func @kv_cache
// SPLIT-FORCED: fuse.grid = array<i64: 6, 1, 1>, {{.*}}fuse.split_workspace = array<i64: 3, 2, 1584>}
// KVCACHE-CPASYNC-LABEL: func.func @kv_cache
// KVCACHE-CPASYNC-NOT: fuse.tensor_maps
// KVCACHE-CPASYNC: gpu.func @kv_cache_k0
// KVCACHE-CPASYNC: arith.cmpi sge
// KVCACHE-CPASYNC: arith.select {{.*}} : !llvm.ptr<1>
// KVCACHE-CPASYNC: nvvm.cp.async.shared.global
func.func @kv_cache(%q: tensor<1x2x1x64xbf16>, %kc: tensor<1x2x256x64xbf16>, %vc: tensor<1x2x256x64xbf16>, %kn: tensor<1x2x1x64xbf16>, %vn: tensor<1x2x1x64xbf16>) -> tensor<1x2x1x64xbf16> {
  %k = fuse.concat %kc, %kn axis = 2 : (tensor<1x2x256x64xbf16>, tensor<1x2x1x64xbf16>) -> tensor<1x2x257x64xbf16>
  %v = fuse.concat %vc, %vn axis = 2 : (tensor<1x2x256x64xbf16>, tensor<1x2x1x64xbf16>) -> tensor<1x2x257x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x257x64xbf16>, tensor<1x2x257x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}

// -----

// An empty input of the concat adds no rows and no piece: four maps (q,
// the cache, the new row, V).
// KVCACHE-LABEL: func.func @kv_cache_empty_piece
// KVCACHE: fuse.tensor_maps = [#fuse.tensor_map<input = 3, {{[^>]*}}>, #fuse.tensor_map<input = 0, dims = [64, 128, 2], {{[^>]*}}>, #fuse.tensor_map<input = 2, dims = [64, 1, 2], {{[^>]*}}>, #fuse.tensor_map<input = 4, dims = [64, 129, 2], {{[^>]*}}>]}
func.func @kv_cache_empty_piece(%q: tensor<1x2x1x64xbf16>, %kc: tensor<1x2x128x64xbf16>, %ke: tensor<1x2x0x64xbf16>, %kn: tensor<1x2x1x64xbf16>, %v: tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16> {
  %k = fuse.concat %kc, %ke, %kn axis = 2 : (tensor<1x2x128x64xbf16>, tensor<1x2x0x64xbf16>, tensor<1x2x1x64xbf16>) -> tensor<1x2x129x64xbf16>
  %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x1x64xbf16>, tensor<1x2x129x64xbf16>, tensor<1x2x129x64xbf16>) -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}
