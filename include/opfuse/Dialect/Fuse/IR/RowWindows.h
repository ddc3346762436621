//===- RowWindows.h - Windows a kernel reads along its rows -----*- C++ -*-===//
//
// A convolution written as the sum of its taps' windows (fuse-decompose)
// reads slices of one value whose offsets differ only along the output's
// rows: neighbouring outputs of a row read overlapping windows. The view
// emitter gives a thread several such outputs so that the loads they
// share are read once; the cost model counts the loads it then issues.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_ROWWINDOWS_H
#define OPFUSE_DIALECT_FUSE_IR_ROWWINDOWS_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/SmallVector.h"

namespace opfuse::fuse {

/// Slices of one value, of the group's output shape but perhaps its last
/// axis (a group's input channels, gathered onto its output channels),
/// with the same strides and the same offsets but along the output's
/// second-to-last axis: one row of a convolution's taps.
struct RowWindowSet {
  llvm::SmallVector<SliceOp> slices;
  /// The distinct offsets along the row, in the order first read.
  llvm::SmallVector<int64_t> offsets;
  /// The slices' stride along the row.
  int64_t stride = 1;

  /// Distinct windows `rows` neighbouring outputs of a row read: the
  /// offsets shifted by each neighbour's stride.
  int64_t columnsFor(int64_t rows) const;
};

/// The sets of `group` of at least two offsets; none where its first
/// output has rank below 2.
llvm::SmallVector<RowWindowSet> findRowWindows(GroupOp group);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_ROWWINDOWS_H
