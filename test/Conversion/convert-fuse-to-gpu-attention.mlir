// The fused attention kernel (lib/Conversion/FuseToGPU/AttentionKernel.cpp):
// fusion gives fuse.attention one kernel with the head-splitting views it
// reads q, k and v through and the head merge it stores through; the
// kernel copies the Q tile and two stages of K and V with cp.async and
// keeps the online softmax in registers (maxima and sums across a quad by
// XOR shuffles, exponentials as ex2.approx), and a causal block stops at
// its last visible key tile. With mma.sync tiles (BMxBN, 4 warps) S = Q Kᵀ
// and O += P V are mma.sync on ldmatrix fragments (V through
// ldmatrix.trans), P never leaving registers; with wgmma tiles (the
// default on sm_90 for head dims that are multiples of 64: a warpgroup per
// 64 query rows) both are wgmma batches from swizzled shared memory, each
// warpgroup's P written to its own tile first (a proxy fence and the
// warpgroup's named barrier), and the kernel module targets sm_90a.
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=128x64" | FileCheck %s
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=64x32" | FileCheck %s --check-prefix=TILED
// RUN: opfuse-opt %s -split-input-file -fuse-elementwise -fuse-outline-kernels -convert-fuse-to-gpu | FileCheck %s --check-prefix=WGMMA
// RUN: not opfuse-opt %s -split-input-file "-fuse-set-target=chip=sm_80" -fuse-elementwise -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=wgmma:128x128" 2>&1 | FileCheck %s --check-prefix=SM80

// WGMMA-LABEL: func.func @heads
// WGMMA: fuse.group(%arg0) {fuse.block = array<i64: 256, 1, 1>, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@heads_k0, fuse.shared_bytes = 65536 : i64}
// WGMMA: gpu.module @opfuse_kernels [#nvvm.target<O = 3, chip = "sm_90a">]
// WGMMA: gpu.func @heads_k0
// WGMMA: scf.for
// WGMMA: nvvm.fence.proxy
// WGMMA: nvvm.wgmma.fence.aligned
// WGMMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WGMMA: nvvm.wgmma.wait.group.sync.aligned 0
// WGMMA: ex2.approx.ftz.f32
// WGMMA: llvm.store {{.*}} : i32, !llvm.ptr<3>
// WGMMA: nvvm.fence.proxy
// WGMMA: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// WGMMA: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// SM80: error: attention-tiling: wgmma tiles need sm_90; the target is sm_80

// CHECK-LABEL: func.func @heads
// CHECK: fuse.group(%arg0) {fuse.block = array<i64: 128, 1, 1>, fuse.grid = array<i64: 8, 1, 1>, fuse.kernel = @opfuse_kernels::@heads_k0, fuse.shared_bytes = 49152 : i64}
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
