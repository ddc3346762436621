// The pass checks its options before it runs (initialize), so opfuse-opt
// gives the errors opt-fuse gives, and no option value reaches an emitter
// that would divide by it.

// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=block-size=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: convert-fuse-to-gpu: block-size=0: threads per block must be a multiple of 32 from 32 to 1024
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=block-size=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: convert-fuse-to-gpu: block-size=-1: threads per block must be a multiple of 32 from 32 to 1024
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=block-size=1025 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: error: convert-fuse-to-gpu: block-size=1025: threads per block must be a multiple of 32 from 32 to 1024
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=block-size=100 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: error: convert-fuse-to-gpu: block-size=100: threads per block must be a multiple of 32 from 32 to 1024
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=vectors-per-thread=3 2>&1 | FileCheck %s --check-prefix=VECTORS
// VECTORS: error: convert-fuse-to-gpu: vectors-per-thread=3: must be 1, 2 or 4
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=window-rows=16 2>&1 | FileCheck %s --check-prefix=WINDOWROWS
// WINDOWROWS: error: convert-fuse-to-gpu: window-rows=16: must be 0 (auto), 1, 2, 4 or 8
// RUN: not opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=row-elements-per-thread=0 2>&1 | FileCheck %s --check-prefix=ROW
// ROW: error: convert-fuse-to-gpu: row-elements-per-thread=0: must be 8, 16, 32 or 64
// RUN: not opfuse-opt %s -fuse-outline-kernels "-convert-fuse-to-gpu=matmul-tiling=99999999999x64x64/1x1/4" 2>&1 | FileCheck %s --check-prefix=TILING
// TILING: error: convert-fuse-to-gpu: matmul-tiling: '99999999999x64x64/1x1/4' is not [wgmma:]BMxBNxBK/WMxWN/S[/kP] with positive integers of at most 65536
// RUN: not opfuse-opt %s -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=96x64" 2>&1 | FileCheck %s --check-prefix=ATTN-M
// ATTN-M: error: convert-fuse-to-gpu: attention-tiling: '96x64': BM (query rows per block) must be 64 or 128
// RUN: not opfuse-opt %s -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=64x48" 2>&1 | FileCheck %s --check-prefix=ATTN-N
// ATTN-N: error: convert-fuse-to-gpu: attention-tiling: '64x48': BN (keys per step) must be 32, 64 or 128
// RUN: not opfuse-opt %s -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=big" 2>&1 | FileCheck %s --check-prefix=ATTN-TEXT
// RUN: not opfuse-opt %s -fuse-outline-kernels "-convert-fuse-to-gpu=attention-tiling=wgmma:128x32" 2>&1 | FileCheck %s --check-prefix=ATTN-WGMMA
// ATTN-WGMMA: error: convert-fuse-to-gpu: attention-tiling: 'wgmma:128x32': wgmma and tma tiles take BN 64 or 128
// ATTN-TEXT: error: convert-fuse-to-gpu: attention-tiling: 'big': expected auto or [wgmma:|tma:]BMxBN[/kS|/persistent] (e.g. 128x64)

// Within range, a block size changes the loop kernel's launch (1024
// vectors, one a thread: a kernel this small is not unrolled).
// RUN: opfuse-opt %s -fuse-outline-kernels -convert-fuse-to-gpu=block-size=128 | FileCheck %s
// CHECK: fuse.block = array<i64: 128, 1, 1>
// CHECK-SAME: fuse.grid = array<i64: 8, 1, 1>

func.func @relu(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = fuse.relu %x : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
