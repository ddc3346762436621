//===- MatmulTiling.h - Tiles of the GEMM kernels ---------------*- C++ -*-===//
//
// Which tensor-core instruction a GEMM kernel uses and how it tiles the
// output and K: the --matmul-tiling option, its checks, and the automatic
// choice per chip and problem shape.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
#define OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// The string attribute naming a GEMM kernel's tiling: read from a group
/// (or a lone contraction) when present, and written on every GEMM group
/// convert-fuse-to-gpu emits, with the tiling it used.
inline constexpr llvm::StringLiteral kMatmulTilingAttr = "fuse.matmul_tiling";

/// The most shared memory one sm_90 block may use: 227 KiB.
inline constexpr int64_t kMaxSharedBytesPerBlock = 227 * 1024;

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
  /// `elementBytes` each: the stages, and with warpgroup MMA two 8-byte
  /// mbarriers per stage after them (full: TMA copies signal it; empty:
  /// the MMA warpgroups of the warp-specialised kernel release it).
  int64_t sharedBytes(int64_t elementBytes = 2) const {
    return stages * (blockM + blockN) * blockK * elementBytes +
           (instruction == MmaInstruction::Warpgroup ? 16 * stages : 0);
  }
};

/// Parses "[wgmma:]BMxBNxBK/WMxWN/S" (e.g. "128x128x32/2x2/4" for mma.sync,
/// "wgmma:128x256x64/2x1/4" for warpgroup MMA); on failure says why in
/// `error`.
std::optional<MatmulTiling> parseMatmulTiling(llvm::StringRef text,
                                              std::string &error);

/// The tiling `text` means on `chip`: "auto" stands for warpgroup MMA
/// (wgmma:128x256x64/2x1/4) on sm_90 and mma.sync (128x128x32/2x2/4)
/// elsewhere when a tiling must be checked without a GEMM to fit it to
/// (rankMatmulTilings picks per GEMM); wgmma on another chip is an error.
std::optional<MatmulTiling> resolveMatmulTiling(llvm::StringRef text,
                                                llvm::StringRef chip,
                                                std::string &error);

/// A candidate tiling and what the tile model predicts for it.
struct TilingEstimate {
  MatmulTiling tiling;
  /// Predicted kernel time without the launch overhead.
  double seconds = 0;
  /// Output tiles, and blocks resident per SM (at least 1).
  int64_t tiles = 0, blocksPerSm = 0;
};

/// Blocks of `tiling` one SM of `target` holds at once (shared memory,
/// threads, registers as ptxas would give them; see rankMatmulTilings), for
/// operands of `elementBytes`; 0 when none fits. `extraThreads` (a
/// producer warpgroup) share the block's registers without accumulators.
int64_t residentBlocksPerSm(const MatmulTiling &tiling, int64_t elementBytes,
                            const GpuTarget &target,
                            int64_t extraThreads = 0);

/// The contraction a GEMM kernel computes: `kernelOp` itself, or the one
/// inside it when it is a fuse.group; null when there is none.
mlir::Operation *findContraction(mlir::Operation *kernelOp);

/// The tilings the GEMM kernel `kernelOp` (a fuse.group holding a
/// contraction, or a lone contraction) can use on `chip`, fastest first as
/// the tile model predicts them on `target` (docs/cost-model.md): the
/// busiest SM's tiles (ceil(tiles / SMs)) times one tile's time: its
/// tensor-core FLOPs plus its operand traffic through the L2 (at the SM's
/// share of L2 bandwidth) plus the epilogue's bytes (at its share of HBM
/// bandwidth). A tiling needs at least one
/// resident block per SM (shared memory, registers, threads). Warpgroup MMA
/// tilings on sm_90, mma.sync ones elsewhere; f32 operands get the one
/// f32 tiling (128x128x32/4x4/3). Ties keep the order of enumeration,
/// which lists wider tiles first.
std::vector<TilingEstimate> rankMatmulTilings(mlir::Operation *kernelOp,
                                              llvm::StringRef chip,
                                              const GpuTarget &target);

/// The tiling as "[wgmma:]BMxBNxBK/WMxWN/S".
std::string formatMatmulTiling(const MatmulTiling &tiling);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
