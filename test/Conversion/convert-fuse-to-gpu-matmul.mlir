// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=128x128x32/2x2/4" | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=tma=false" | FileCheck %s --check-prefix=WGMMA
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=128x128x32/2x2/4 gemm-vector-stores=false" | FileCheck %s --check-prefix=PAIRS
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=TMA
// The f32 functions below reject a wgmma tiling (F32WGMMA), hence `not`.
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=warp-specialize=true matmul-tiling=wgmma:128x64x64/2x1/4" 2>/dev/null | FileCheck %s --check-prefix=WS
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=ping-pong=true matmul-tiling=wgmma:128x64x64/2x1/4" 2>/dev/null | FileCheck %s --check-prefix=PINGPONG
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=wgmma:128x256x64/2x1/4" 2>&1 | FileCheck %s --check-prefix=NOTHOPPER
// RUN: opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=AMPERE
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=allow-tf32" | FileCheck %s --check-prefix=TF32
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=wgmma:128x256x64/2x1/4" 2>&1 | FileCheck %s --check-prefix=F32WGMMA
// F32WGMMA: error: wgmma tilings take bf16 or f16 operands; give f32 an mma.sync tiling (e.g. 128x128x32/2x2/4)
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=128x256x64/2x4/3" 2>&1 | FileCheck %s --check-prefix=F32SHARED
// F32SHARED: error: matmul-tiling 128x256x64/2x4/3 needs 294912 bytes of shared memory for 'f32' operands; an sm_90 block has at most 232448
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=64x64x32/2x2/3" | FileCheck %s --check-prefix=SMALL
// RUN: not opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=128x128x24/2x2/4" 2>&1 | FileCheck %s --check-prefix=BADTILING
// BADTILING: error: convert-fuse-to-gpu: matmul-tiling: BK must be a multiple of 16 (the MMA's K)
// NOTHOPPER: error: matmul-tiling: wgmma needs sm_90 (the kernels are compiled for sm_80)
// auto is mma.sync off sm_90, and the module keeps its chip.
// AMPERE: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_80">]
// AMPERE: nvvm.mma.sync
// AMPERE-NOT: wgmma

// On sm_90 auto is warpgroup MMA and the kernels are compiled for sm_90a;
// for 256x256x64 the tile model picks one warpgroup (128 threads) per
// 64x64 tile (16 tiles on 16 SMs beat 2 wider ones), 4 stages of
// (64 + 64) x 64 bf16 = 64 KiB (and 64 bytes of stage barriers, unused by
// cp.async). With tma=false the copies run 2 slices ahead (the
// prologue fills the 1 slice there is here and commits twice); each slice
// waits for its copies, fences them for the tensor cores' async proxy and
// passes one barrier, then the warpgroup issues 4 wgmma m64n64k16 reading
// A (K-contiguous, row) and B (N-contiguous, row) through descriptors and
// waits for the batch before last.
// WGMMA-LABEL: func.func @bias_gelu
// WGMMA: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<cooperative, cp_async>, fuse.grid = array<i64: 16, 1, 1>, fuse.kernel = @opfuse_kernels::@bias_gelu_k0, fuse.matmul_tiling = #fuse.tiling<"wgmma:64x64x64/1x1/4">, fuse.shared_bytes = 65600 : i64}
// WGMMA: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90a">]
// WGMMA: llvm.mlir.global external @opfuse_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64}
// WGMMA: nvvm.cp.async.commit.group
// WGMMA-NEXT: nvvm.cp.async.commit.group
// WGMMA: scf.for {{.*}} -> (!llvm.struct<(f32,
// WGMMA: nvvm.cp.async.wait.group 1
// WGMMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA-NEXT: gpu.barrier
// WGMMA: nvvm.wgmma.fence.aligned
// WGMMA-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// WGMMA: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f"
// WGMMA: nvvm.shfl.sync bfly
// WGMMA: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>

// With TMA (the default) the same kernel takes a tensor map per operand
// after its output: A (256x64, K-contiguous) in boxes of 64 K x 64 rows,
// B (64x256, N-contiguous) in one 64-wide panel of 64 K rows per slice.
// Thread 0 initialises one mbarrier per stage behind the 64 KiB of stages
// (64 bytes are reserved for two per stage); it announces a stage's 16 KiB
// and issues both copies; every thread waits on the stage's barrier phase
// instead of cp.async groups, and no cp.async is left.
// TMA-LABEL: func.func @bias_gelu
// TMA: fuse.gemm_schedule = #fuse.gemm_schedule<cooperative, tma>
// TMA-SAME: fuse.shared_bytes = 65600 : i64, fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 256], strides = [128], box = [64, 64]>, #fuse.tensor_map<input = 1, dims = [256, 64], strides = [512], box = [64, 64]>]}
// TMA: gpu.func @bias_gelu_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[MAPA:.*]]: !llvm.ptr<1>, %[[MAPB:.*]]: !llvm.ptr<1>)
// TMA-COUNT-4: nvvm.mbarrier.init
// TMA-NEXT: nvvm.fence.mbarrier.init
// TMA: gpu.barrier
// TMA: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// TMA: llvm.addrspacecast %[[MAPA]] : !llvm.ptr<1> to !llvm.ptr
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} : !llvm.ptr<7>, !llvm.ptr
// TMA: llvm.addrspacecast %[[MAPB]] : !llvm.ptr<1> to !llvm.ptr
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} : !llvm.ptr<7>, !llvm.ptr
// TMA: scf.for
// TMA: nvvm.mbarrier.try_wait.parity
// TMA-NEXT: gpu.barrier
// TMA: nvvm.wgmma.mma_async
// TMA-NOT: nvvm.cp.async.wait.group
// TMA: nvvm.wgmma.wait.group.sync.aligned 0
// TMA-NOT: nvvm.cp.async.shared
// TMA-LABEL: func.func @

// Warp-specialised (two MMA warpgroups and a producer: 384 threads; the
// default for such tilings): each of the 4 stages has a full barrier (1
// arrival) and an empty one (256: every MMA thread releases, so that no
// branch on the thread index surrounds the wgmma loop, which would make
// ptxas serialise the wgmma instructions). The role branch compares the
// warp index shuffled from lane 0 (warp-uniform to ptxas). The producer
// warpgroup gives up registers and its first thread walks the tiles and
// slices, waiting for a stage to be released before refilling it; the MMA
// warpgroups take the registers, wait for full stages, multiply, and
// release each stage once the next batch has been issued and the one
// before completed.
// WS-LABEL: func.func @bias_gelu
// WS: fuse.block = array<i64: 384, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<warp_specialized, tma>, fuse.grid = array<i64: 8, 1, 1>, {{.*}} fuse.shared_bytes = 98368 : i64
// WS: gpu.func @bias_gelu_k0({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>}
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(1 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(1 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(1 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(1 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(256 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(256 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(256 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS: llvm.getelementptr
// WS-NEXT: llvm.mlir.constant(256 : i32)
// WS-NEXT: nvvm.mbarrier.init
// WS-NEXT: nvvm.fence.mbarrier.init
// WS: gpu.barrier
// WS: %[[WARP:.*]] = nvvm.shfl.sync  idx
// WS: arith.cmpi uge, %[[WARP]], %{{.*}} : i32
// WS: nvvm.setmaxregister  decrease 40
// WS: scf.for
// WS: scf.for
// WS: nvvm.mbarrier.try_wait.parity
// WS: nvvm.mbarrier.arrive.expect_tx
// WS: nvvm.cp.async.bulk.tensor.shared.cluster.global
// WS: nvvm.cp.async.bulk.tensor.shared.cluster.global
// WS: } else {
// WS-NEXT: nvvm.setmaxregister  increase 232
// WS: nvvm.mbarrier.try_wait.parity
// WS: nvvm.wgmma.wait.group.sync.aligned 1
// WS: %[[NOTFIRST:.*]] = arith.cmpi ugt
// WS-NOT: arith.andi
// WS: scf.if %[[NOTFIRST]] {
// WS: nvvm.mbarrier.arrive
// WS: nvvm.wgmma.wait.group.sync.aligned 0
// WS-NOT: scf.if
// WS: nvvm.mbarrier.arrive
// WS-NOT: gpu.barrier
// WS: llvm.inline_asm "tanh.approx.f32
// WS-LABEL: func.func @

// Ping-pong (same tiling): each MMA warpgroup owns a whole 128x64 tile,
// both of its 64-row blocks (two accumulator sets, two wgmma per K step
// sharing B's descriptor), and the block's tiles alternate between them:
// warpgroup g starts at ordinal g and steps 2 grids. Only one warpgroup
// reads a stage, so the empty barriers count 128 arrivals. Named barriers
// pass the turn: a warpgroup past its first tile waits on barrier 2 - g
// before its K loop and arrives on 1 + g once its last slice has landed,
// then stores its epilogue while the other multiplies.
// PINGPONG-LABEL: func.func @bias_gelu
// PINGPONG: fuse.block = array<i64: 384, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<ping_pong, tma>
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(1 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(1 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(1 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(1 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(128 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(128 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(128 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG: llvm.getelementptr
// PINGPONG-NEXT: llvm.mlir.constant(128 : i32)
// PINGPONG-NEXT: nvvm.mbarrier.init
// PINGPONG-NEXT: nvvm.fence.mbarrier.init
// PINGPONG: } else {
// PINGPONG-NEXT: nvvm.setmaxregister  increase 232
// PINGPONG: %[[G:.*]] = arith.divui %[[WARP:.*]], %{{.*}} : i32
// PINGPONG-NEXT: %[[GI:.*]] = arith.index_castui %[[G]]
// PINGPONG: %[[SKIP:.*]] = arith.muli %grid_dim_x{{.*}}, %[[GI]]
// PINGPONG-NEXT: %[[FIRST:.*]] = arith.addi %block_id_x{{.*}}, %[[SKIP]]
// PINGPONG: %[[STEP:.*]] = arith.muli %grid_dim_x{{.*}}, %c2
// PINGPONG: scf.for %{{.*}} = %[[FIRST]] to %c8 step %[[STEP]]
// PINGPONG: %[[LATER:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}} : i32
// PINGPONG-NEXT: scf.if %[[LATER]] {
// PINGPONG: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// PINGPONG: scf.for {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}, %[[ACC1:.*]] = %{{.*}}) -> (!llvm.struct
// PINGPONG: nvvm.mbarrier.try_wait.parity
// PINGPONG: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %[[B:.*]], %[[ACC0]], <m = 64, n = 64, k = 16>
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %[[B]], %[[ACC1]], <m = 64, n = 64, k = 16>
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]]
// PINGPONG-COUNT-5: nvvm.wgmma.mma_async
// PINGPONG-NOT: nvvm.wgmma.mma_async
// PINGPONG: nvvm.wgmma.wait.group.sync.aligned 1
// PINGPONG: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// PINGPONG-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// PINGPONG: llvm.inline_asm "tanh.approx.f32
// PINGPONG-LABEL: func.func @

// bf16 256x256x64 with a bias+GELU epilogue, default tiles
// (128x128x32/2x2/4): 4 blocks of 4 warps, 4 stages of (128 + 128) x 32
// bf16 = 64 KiB of dynamic shared memory. Each thread copies 4 + 4 16-byte
// chunks per K-slice; the prologue fills the two slices there are (3
// commit groups, one empty). Per slice a warp loads 2 x (4 A + 4 B)
// fragments (B with ldmatrix.trans: it is stored N-contiguous) and issues
// 2 x 32 m16n8k16 MMAs. The epilogue goes in chunks of one m16 tile
// against 8 n8 tiles: it reads the bias pairs of all 16 stores of the
// chunk first (a load after a store would wait for the one before), then
// runs GELU on their accumulators, with the SM's tanh for a bf16 result,
// packs the bf16 pairs, and the four threads sharing a row trade them
// (two butterfly shuffles a word) so that each stores 16 bytes: one n8
// tile's row. Whole tiles need no guard. With gemm-vector-stores=false
// (PAIRS) each thread stores its own pairs.
// CHECK-LABEL: func.func @bias_gelu
// CHECK: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, cp_async>, fuse.grid = array<i64: 4, 1, 1>, fuse.kernel = @opfuse_kernels::@bias_gelu_k0, fuse.matmul_tiling = #fuse.tiling<"128x128x32/2x2/4">, fuse.shared_bytes = 65536 : i64}
// CHECK: fuse.matmul
// CHECK-NEXT: fuse.add
// CHECK-NEXT: fuse.gelu
// CHECK: llvm.mlir.global external @opfuse_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @bias_gelu_k0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: llvm.mlir.addressof @opfuse_dynamic_shared : !llvm.ptr<3>
// Both operands are the function's arguments: under early launch (the
// default on sm_90) the first slices of both are copied before the wait
// for the grids before, as one commit group (the stages' own groups stay,
// empty, so the loop's waits count as without it). No L2 prefetches.
// CHECK-COUNT-16: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg, {{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: prefetch
// CHECK: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32,
// CHECK: nvvm.cp.async.wait.group 2
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-8: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4
// CHECK-COUNT-32: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;", "~{memory}"
// CHECK-NOT: scf.if
// CHECK-COUNT-16: llvm.load {{.*}} -> vector<2xbf16>
// CHECK-NOT: llvm.store
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: scf.if
// CHECK-NOT: math.tanh
// CHECK: gpu.return
// PAIRS-LABEL: func.func @bias_gelu
// PAIRS: gpu.func @bias_gelu_k0
// PAIRS-NOT: nvvm.shfl.sync
// PAIRS: llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr<1>
// PAIRS-NOT: nvvm.shfl.sync
// PAIRS: gpu.return
func.func @bias_gelu(%a: tensor<256x64xbf16>, %b: tensor<64x256xbf16>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<256x64xbf16>, tensor<64x256xbf16>) -> tensor<256x256xbf16>
  %1 = fuse.add %0, %bias : (tensor<256x256xbf16>, tensor<256xbf16>) -> tensor<256x256xbf16>
  %2 = fuse.gelu %1 approximate = tanh : tensor<256x256xbf16>
  return %2 : tensor<256x256xbf16>
}

// -----

// f16, both operands transposed, ragged: M = 200, N = 100, K = 300 (a
// multiple of 4, not 8: 8-byte copies). A is stored M-contiguous
// (ldmatrix.trans), B K-contiguous. One lone matmul becomes a group of one;
// out-of-range rows and columns copy zero bytes and every store pair is
// guarded. 2 x 1 tiles; fragments are f16 pairs.
// WGMMA-LABEL: func.func @ragged_transposed
// WGMMA-COUNT-4: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
// SMALL-LABEL: func.func @ragged_transposed
// SMALL: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, cp_async>, fuse.grid = array<i64: 8, 1, 1>, {{.*}}fuse.shared_bytes = 24576 : i64}
// SMALL: gpu.func @ragged_transposed_k0
// SMALL: nvvm.cp.async.shared.global {{.*}}, 8, cache =  ca, {{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// SMALL: scf.for
// SMALL: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// SMALL: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// SMALL: llvm.bitcast {{.*}} : i32 to vector<2xf16>
// SMALL: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// SMALL: nvvm.cp.async.wait.group 0
// SMALL: scf.if
// SMALL: llvm.store {{.*}} : vector<2xf16>, !llvm.ptr<1>
func.func @ragged_transposed(%a: tensor<300x200xf16>, %b: tensor<100x300xf16>) -> tensor<200x100xf16> {
  %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<300x200xf16>, tensor<100x300xf16>) -> tensor<200x100xf16>
  return %0 : tensor<200x100xf16>
}

// -----

// Odd leading dimensions (K = 45, N = 31): no aligned cp.async exists, so
// plain 2-byte loads and shared stores; odd N stores single elements.
// SMALL-LABEL: func.func @odd
// SMALL: gpu.func @odd_k0
// SMALL-NOT: nvvm.cp.async.shared.global
// SMALL: llvm.load {{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
// SMALL: llvm.store {{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<3>
// SMALL: nvvm.mma.sync
// SMALL: llvm.store {{.*}} : bf16, !llvm.ptr<1>
func.func @odd(%a: tensor<77x45xbf16>, %b: tensor<45x31xbf16>) -> tensor<77x31xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<77x45xbf16>, tensor<45x31xbf16>) -> tensor<77x31xbf16>
  return %0 : tensor<77x31xbf16>
}

// -----

// f32 (auto): the mma.sync pipeline with warps of 32 x 32 (here 64 x 64
// tiles, 15 of them, and 4 warps), 4-byte elements (16-byte copies of 4
// f32, 3 stages of (64 + 64) x 32 x 4 = 48 KiB). Without allow-tf32 each
// thread computes its accumulators with
// f32 FMAs (2 x 4 tiles x 4 accumulators x 8 K = 256 per K step of 8, 4
// steps a slice); with it, fragments are rounded to TF32 (cvt.rna) and go
// to mma.sync m16n8k8.
// WGMMA-LABEL: func.func @f32_bias
// WGMMA: fuse.group({{.*}}) {fuse.block = array<i64: 128, 1, 1>, fuse.early_launch, fuse.gemm_schedule = #fuse.gemm_schedule<fma, cp_async>, fuse.grid = array<i64: 15, 1, 1>, {{.*}}fuse.matmul_tiling = #fuse.tiling<"64x64x32/2x2/3">, fuse.shared_bytes = 49152 : i64}
// WGMMA: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90">]
// WGMMA: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg
// WGMMA: scf.for
// WGMMA-COUNT-1024: math.fma
// WGMMA-NOT: nvvm.mma.sync
// WGMMA: scf.yield
// TF32-LABEL: func.func @f32_bias
// TF32: scf.for
// TF32: llvm.inline_asm "cvt.rna.tf32.f32 $0, $1;", "=r,f"
// TF32: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-NOT: math.fma
// TF32: scf.yield
func.func @f32_bias(%a: tensor<300x96xf32>, %b: tensor<96x130xf32>, %bias: tensor<130xf32>) -> tensor<300x130xf32> {
  %0 = fuse.matmul %a, %b : (tensor<300x96xf32>, tensor<96x130xf32>) -> tensor<300x130xf32>
  %1 = fuse.add %0, %bias : (tensor<300x130xf32>, tensor<130xf32>) -> tensor<300x130xf32>
  return %1 : tensor<300x130xf32>
}

// -----

// An output of 65536 x 40960 = 2.7G elements: offsets are 64-bit (the
// batch base is batch x M x N), the row widened before it is scaled by N
// (32-bit row x N would wrap).
// WGMMA-LABEL: func.func @huge
// WGMMA: gpu.func @huge_k0
// WGMMA: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA: arith.muli %{{.*}}, %c2684354560_i64 : i64
// WGMMA: arith.extui %{{.*}} : i32 to i64
// WGMMA: arith.muli %{{.*}}, %c40960_i64{{.*}} : i64
// WGMMA: llvm.getelementptr %{{.*}} : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// WGMMA: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<1>
func.func @huge(%a: tensor<65536x64xbf16>, %b: tensor<64x40960xbf16>) -> tensor<65536x40960xbf16> {
  %0 = fuse.matmul %a, %b : (tensor<65536x64xbf16>, tensor<64x40960xbf16>) -> tensor<65536x40960xbf16>
  return %0 : tensor<65536x40960xbf16>
}

// -----

// Operands read through views keep their tensor maps. Q and K split out
// of a packed QKV [2, 70, 384] (K 128 columns = 256 bytes in: the map's
// offset) and split into heads, so the map has the head dimension (stride 64 x 2 bytes) and
// the batch (70 x 384 x 2) as two dimensions that do not merge; the box
// takes one coordinate in each. The copies compute the coordinates from the
// tile's batch indices.
// TMA-LABEL: func.func @qk_through_views
// TMA: fuse.gemm_schedule = #fuse.gemm_schedule<cooperative, tma>
// TMA-SAME: fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 70, 2, 2], strides = [768, 128, 53760], box = [64, 64, 1, 1]>, #fuse.tensor_map<input = 0, dims = [64, 70, 2, 2], strides = [768, 128, 53760], box = [64, 64, 1, 1], offset = 256>]}
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// TMA-NOT: nvvm.cp.async.wait.group
func.func @qk_through_views(%qkv: tensor<2x70x384xbf16>) -> tensor<2x2x70x70xbf16> {
  %q0 = fuse.slice %qkv offsets = [0, 0, 0] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
  %q1 = fuse.reshape %q0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
  %q = fuse.transpose %q1 permutation = [0, 2, 1, 3] : tensor<2x70x2x64xbf16> -> tensor<2x2x70x64xbf16>
  %k0 = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
  %k1 = fuse.reshape %k0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
  %k = fuse.transpose %k1 permutation = [0, 2, 3, 1] : tensor<2x70x2x64xbf16> -> tensor<2x2x64x70xbf16>
  %s = fuse.matmul %q, %k : (tensor<2x2x70x64xbf16>, tensor<2x2x64x70xbf16>) -> tensor<2x2x70x70xbf16>
  return %s : tensor<2x2x70x70xbf16>
}

// -----

// One K head for every query head (grouped-query attention): the batch
// dimension K broadcasts over has no coordinate in its map.
// TMA-LABEL: func.func @gqa_broadcast
// TMA: fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 100, 8], strides = [128, 12800], box = [64, 64, 1]>, #fuse.tensor_map<input = 1, dims = [64, 100, 2], strides = [128, 12800], box = [64, 64, 1]>]}
func.func @gqa_broadcast(%q: tensor<2x4x100x64xbf16>, %k: tensor<2x1x100x64xbf16>) -> tensor<2x4x100x100xbf16> {
  %s = fuse.matmul %q, %k transpose_b : (tensor<2x4x100x64xbf16>, tensor<2x1x100x64xbf16>) -> tensor<2x4x100x100xbf16>
  return %s : tensor<2x4x100x100xbf16>
}
