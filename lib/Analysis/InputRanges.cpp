//===- InputRanges.cpp - Ranges of the seeded inputs of a model -----------===//

#include "opfuse/Analysis/InputRanges.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace opfuse {

namespace {

/// The contraction size `use` feeds as a weight, if it does.
std::optional<int64_t> weightContraction(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto matmul = dyn_cast<fuse::MatmulOp>(owner))
    if (use.getOperandNumber() == 1)
      return matmul.getContractionSize();
  if (auto conv = dyn_cast<fuse::Conv2DOp>(owner))
    if (use.get() == conv.getFilter()) {
      ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
      return filter[1] * filter[2] * filter[3];
    }
  return std::nullopt;
}

/// Ops that move or round data without changing its magnitude.
bool keepsMagnitude(Operation *op) {
  return isa<fuse::ReshapeOp, fuse::TransposeOp, fuse::SliceOp,
             fuse::BroadcastToOp, fuse::ConcatOp, fuse::CastOp>(op);
}

double rangeOf(BlockArgument argument) {
  double range = kDefaultInputRange;
  SmallVector<Value> worklist{argument};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      if (std::optional<int64_t> k = weightContraction(use)) {
        if (*k > 0)
          range = std::min(range, std::sqrt(3.0 / static_cast<double>(*k)));
        continue;
      }
      if (keepsMagnitude(use.getOwner()))
        llvm::append_range(worklist, use.getOwner()->getResults());
    }
  }
  return range;
}

} // namespace

SmallVector<double> seededInputRanges(func::FuncOp func) {
  SmallVector<double> ranges;
  for (BlockArgument argument : func.getArguments())
    ranges.push_back(rangeOf(argument));
  return ranges;
}

} // namespace opfuse
