//===- MatmulTiling.h - Tiles of the GEMM kernels ---------------*- C++ -*-===//
//
// The GEMM tiling a chip can run (--matmul-tiling resolved for it) and the
// tile model's choice per problem shape (MatmulTiling itself is in the
// dialect: #fuse.tiling holds one).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
#define OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace opfuse {

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
                            const GpuTarget &target, int64_t extraThreads = 0);

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
/// tilings on sm_90, mma.sync ones elsewhere; f32 operands get mma.sync
/// tilings of 32x32 warps. mma.sync tilings are also offered with K split
/// (splitK > 1) when their tiles leave SMs idle (warpgroup ones only when
/// forced, not yet by the model): the busiest SM then runs
/// ceil(tiles x splits / SMs) blocks of 1/splits of K, each storing its
/// partial tile, plus the last block's sum of the partials. Ties keep the
/// order of enumeration, which lists wider and unsplit tiles first.
std::vector<TilingEstimate> rankMatmulTilings(mlir::Operation *kernelOp,
                                              llvm::StringRef chip,
                                              const GpuTarget &target);

/// Why expectedGemmTiling found no tiling: the op to report it at and the
/// message.
struct GemmTilingError {
  mlir::Operation *at = nullptr;
  std::string message;
};

/// The tiling the GEMM emitter gives `kernelOp` under the --matmul-tiling
/// value `option`: the kernel's or its contraction's fuse.matmul_tiling,
/// else the option, where "auto" asks rankMatmulTilings. Emits nothing:
/// nullopt, with the reason in `error` when given, where there is none
/// (the emitter reports it; the cost model's report asks before it runs).
std::optional<MatmulTiling>
expectedGemmTiling(mlir::Operation *kernelOp, llvm::StringRef option,
                   const GpuTarget &target, GemmTilingError *error = nullptr);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_MATMULTILING_H
