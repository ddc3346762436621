//===- MatmulTiling.h - Tiles of the GEMM kernels ---------------*- C++ -*-===//
//
// Which tensor-core instruction a GEMM kernel uses and how it tiles the
// output and K: the --matmul-tiling option, its checks, and the automatic
// choice per chip and problem shape.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
#define OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace opfuse {

/// The tensor-core instruction a GEMM kernel is built on.
enum class MmaInstruction {
  /// mma.sync.m16n8k16 per warp, fragments loaded with ldmatrix (sm_80+).
  Sync,
  /// wgmma.mma_async.m64nNk16 per warpgroup of 4 warps, operands read from
  /// shared memory through descriptors (sm_90a).
  Warpgroup,
};

/// The tiles of the tensor-core GEMM kernel: a block computes a
/// blockM x blockN tile of the output, stepping over K in blockK slices held
/// in `stages` shared-memory buffers. With mma.sync its warpsM x warpsN
/// warps each own a (blockM / warpsM) x (blockN / warpsN) part of the tile;
/// with wgmma, warpsM x warpsN counts warpgroups (warpsN = 1, 64 rows each).
struct MatmulTiling {
  MmaInstruction instruction = MmaInstruction::Sync;
  int64_t blockM = 128, blockN = 128, blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 4;

  /// Threads per block.
  int64_t threads() const {
    return warpsM * warpsN *
           (instruction == MmaInstruction::Warpgroup ? 128 : 32);
  }
  /// Shared memory a block needs, in bytes, for operands of
  /// `elementBytes` each.
  int64_t sharedBytes(int64_t elementBytes = 2) const {
    return stages * (blockM + blockN) * blockK * elementBytes;
  }
};

/// Parses "[wgmma:]BMxBNxBK/WMxWN/S" (e.g. "128x128x32/2x2/4" for mma.sync,
/// "wgmma:128x256x64/2x1/4" for warpgroup MMA); on failure says why in
/// `error`.
std::optional<MatmulTiling> parseMatmulTiling(llvm::StringRef text,
                                              std::string &error);

/// The tiling `text` means on `chip`: "auto" is warpgroup MMA
/// (wgmma:128x256x64/2x1/4) on sm_90 and mma.sync (128x128x32/2x2/4)
/// elsewhere; wgmma on another chip is an error.
std::optional<MatmulTiling> resolveMatmulTiling(llvm::StringRef text,
                                                llvm::StringRef chip,
                                                std::string &error);

/// `tiling` (the auto choice) fitted to the GEMM of `group`: f32 operands
/// get the mma.sync kernel with 16 warps (128x128x32/4x4/3); with wgmma,
/// the tile is no wider than N rounded up to 64 (a conv2d with 64 filters
/// gets 64 columns, not 256) and has one warpgroup when M is at most 64;
/// stages stay within the shared memory. mma.sync tilings are unchanged.
MatmulTiling fitMatmulTiling(const MatmulTiling &tiling, fuse::GroupOp group);

/// The tiling as "[wgmma:]BMxBNxBK/WMxWN/S".
std::string formatMatmulTiling(const MatmulTiling &tiling);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
