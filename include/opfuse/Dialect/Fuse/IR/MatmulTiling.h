//===- MatmulTiling.h - The tiles of a GEMM kernel --------------*- C++ -*-===//
//
// Which tensor-core instruction a GEMM kernel uses and how it tiles the
// output and K, with the syntax --matmul-tiling and #fuse.tiling share and
// the checks every kernel needs. No MLIR: the attribute, the option and
// the tile model all use this one definition.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_MATMULTILING_H
#define OPFUSE_DIALECT_FUSE_IR_MATMULTILING_H

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace opfuse {

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
/// With splitK > 1 (wgmma: into equal parts) each tile's K slices are divided
/// among splitK blocks; each stores its partial sums, and the last of them to
/// finish adds all of them, in split order, and runs the epilogue.
struct MatmulTiling {
  MmaInstruction instruction = MmaInstruction::Sync;
  int64_t blockM = 128, blockN = 128, blockK = 32;
  int64_t warpsM = 2, warpsN = 2;
  int64_t stages = 4;
  int64_t splitK = 1;

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

  bool operator==(const MatmulTiling &other) const {
    return instruction == other.instruction && blockM == other.blockM &&
           blockN == other.blockN && blockK == other.blockK &&
           warpsM == other.warpsM && warpsN == other.warpsN &&
           stages == other.stages && splitK == other.splitK;
  }
  bool operator!=(const MatmulTiling &other) const { return !(*this == other); }
};

inline llvm::hash_code hash_value(const MatmulTiling &t) {
  return llvm::hash_combine(static_cast<int>(t.instruction), t.blockM, t.blockN,
                            t.blockK, t.warpsM, t.warpsN, t.stages, t.splitK);
}

/// Parses "[wgmma:]BMxBNxBK/WMxWN/S[/kP]" (e.g. "128x128x32/2x2/4" for
/// mma.sync, "wgmma:128x256x64/2x1/4" for warpgroup MMA, "64x64x32/2x2/3/k8"
/// for mma.sync with K split 8 ways); on failure says why in `error`.
std::optional<MatmulTiling> parseMatmulTiling(llvm::StringRef text,
                                              std::string &error);

/// The tiling as "[wgmma:]BMxBNxBK/WMxWN/S", with "/kP" when splitK > 1.
std::string formatMatmulTiling(const MatmulTiling &tiling);

} // namespace opfuse

#endif // OPFUSE_DIALECT_FUSE_IR_MATMULTILING_H
