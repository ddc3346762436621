//===- GroupOp.cpp - fuse.group -------------------------------------------===//
//
// The region that becomes one kernel: its block arguments mirror its inputs,
// its yield mirrors its results, and its cost is that of a fused kernel.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

LogicalResult GroupOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the group has "
           << getInputs().size() << " inputs";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getInputs()))) {
    auto [argType, input] = pair;
    if (argType != input.getType())
      return emitOpError("body argument #")
             << index << " has type " << argType << " but input #" << index
             << " has type " << input.getType();
  }
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with fuse.yield");
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the group has "
           << getNumResults() << " results";
  for (auto [index, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes()))) {
    auto [yielded, result] = pair;
    if (yielded != result)
      return yield.emitOpError("value #")
             << index << " has type " << yielded << " but group result #"
             << index << " has type " << result;
  }
  return success();
}

int64_t GroupOp::getFlops() {
  int64_t flops = 0;
  for (Operation &op : getBody().front())
    if (auto cost = dyn_cast<CostInterface>(op))
      flops += cost.getFlops();
  return flops;
}

} // namespace opfuse::fuse
