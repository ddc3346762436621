//===- RowWindows.cpp - Windows a kernel reads along its rows -------------===//
//
// Part of opfuse. See RowWindows.h.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/RowWindows.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace opfuse::fuse {

int64_t RowWindowSet::columnsFor(int64_t rows) const {
  llvm::SmallDenseSet<int64_t> columns;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t offset : offsets)
      columns.insert(r * stride + offset);
  return static_cast<int64_t>(columns.size());
}

SmallVector<RowWindowSet> findRowWindows(GroupOp group) {
  SmallVector<RowWindowSet> sets;
  if (group.getNumResults() == 0)
    return sets;
  auto output = cast<RankedTensorType>(group.getResultTypes()[0]);
  const int64_t rank = output.getRank();
  if (rank < 2)
    return sets;
  // A set is keyed by its first slice: same input, same strides, the same
  // offsets but the row's.
  auto sameSet = [&](SliceOp a, SliceOp b) {
    if (a.getInput() != b.getInput() || a.getStrides() != b.getStrides())
      return false;
    for (int64_t d = 0; d < rank; ++d)
      if (d != rank - 2 && a.getOffsets()[d] != b.getOffsets()[d])
        return false;
    return true;
  };
  group.getBody().walk([&](SliceOp slice) {
    if (slice.getType().getRank() != rank ||
        slice.getType().getShape().drop_back() != output.getShape().drop_back())
      return;
    const int64_t offset = slice.getOffsets()[rank - 2];
    for (RowWindowSet &set : sets)
      if (sameSet(set.slices.front(), slice)) {
        set.slices.push_back(slice);
        if (!llvm::is_contained(set.offsets, offset))
          set.offsets.push_back(offset);
        return;
      }
    RowWindowSet set;
    set.slices.push_back(slice);
    set.offsets.push_back(offset);
    set.stride = slice.getStrides()[rank - 2];
    sets.push_back(std::move(set));
  });
  llvm::erase_if(
      sets, [](const RowWindowSet &set) { return set.offsets.size() < 2; });
  return sets;
}

} // namespace opfuse::fuse
