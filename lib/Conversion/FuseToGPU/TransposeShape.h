//===- TransposeShape.h - Which transposes run tiled, and how ---*- C++ -*-===//
//
// The transpose emitter's decisions, taken from a group's ops and the
// target before any IR is built: whether the group is one tiled transpose
// (with its prologue and epilogue), the tile, the vector widths of its two
// phases, and whether its tiles are skewed onto the output's sectors or
// move through shared memory as 4 x 4 register blocks.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_TRANSPOSESHAPE_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_TRANSPOSESHAPE_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace opfuse {

/// A group that is one transpose moving the innermost dimension, with the
/// ops its operand is computed from (the prologue) and the ops computed
/// from its result (the epilogue).
struct TransposeShape {
  // Op handles are cheap copies whose accessors are not const.
  mutable fuse::TransposeOp transpose;
  /// The input's innermost dimension, and the input dimension that
  /// becomes the output's innermost.
  int64_t inner = 0, across = 0;
  /// The other input dimensions, outermost first.
  llvm::SmallVector<int64_t> batchDims;
  int64_t tile = 32;
  /// Lanes of the vectors read (along the input's innermost dimension) and
  /// written (along the output's).
  int64_t vecIn = 1, vecOut = 1;
  /// Elements of a 32-byte sector of the output when its row segments are
  /// skewed onto sectors, 0 when the tiles are straight.
  int64_t skew = 0;
  /// Whether each thread transposes 4 x 4 blocks in registers, so both
  /// phases move 16-byte vectors through shared memory (tile rows are then
  /// the output's, swizzled instead of padded); vecIn and vecOut are 4.
  bool blocked = false;

  mlir::RankedTensorType input() const {
    return transpose.getInput().getType();
  }
  int64_t tilesInner() const {
    return llvm::divideCeil(input().getDimSize(inner), tile);
  }
  /// Skewed segments start up to skew - 1 elements before their tile.
  int64_t tilesAcross() const {
    return llvm::divideCeil(
        input().getDimSize(across) + std::max<int64_t>(skew - 1, 0), tile);
  }
  int64_t batch() const {
    int64_t count = 1;
    for (int64_t d : batchDims)
      count *= input().getDimSize(d);
    return count;
  }
};

/// The transpose group `ops` (with `outputs` used outside) forms, if it is
/// one the transpose emitter runs; `smCount` SMs decide whether small grids
/// skew (0: any grid may).
std::optional<TransposeShape>
analyzeTranspose(llvm::ArrayRef<mlir::Operation *> ops,
                 llvm::ArrayRef<mlir::Value> outputs, int64_t smCount);

/// analyzeTranspose on a formed group's body, for `target`.
std::optional<TransposeShape> analyzeTransposeGroup(fuse::GroupOp group,
                                                    const GpuTarget &target);

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_TRANSPOSESHAPE_H
