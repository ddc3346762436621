//===- Sharding.cpp - Inputs of an SPMD run, device by device -------------===//
//
// Reads the fuse.shard axes of a model's arguments and checks that its
// collectives span the run's devices.
//
//===----------------------------------------------------------------------===//

#include "Sharding.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse {

std::optional<int64_t> shardAxis(func::FuncOp func, unsigned index) {
  auto axis = func.getArgAttrOfType<IntegerAttr>(
      index, fuse::FuseDialect::ShardAttrHelper::getNameStr());
  if (!axis)
    return std::nullopt;
  return axis.getInt();
}

LogicalResult checkCollectivesSpan(func::FuncOp func, int64_t devices) {
  WalkResult result = func.walk([&](Operation *op) {
    int64_t spans = 0;
    if (auto reduce = dyn_cast<fuse::AllReduceOp>(op))
      spans = reduce.getDevices();
    else if (auto gather = dyn_cast<fuse::AllGatherOp>(op))
      spans = gather.getDevices();
    else if (auto scatter = dyn_cast<fuse::ReduceScatterOp>(op))
      spans = scatter.getDevices();
    if (spans == 0 || spans == devices)
      return WalkResult::advance();
    op->emitError() << "this collective spans " << spans
                    << " devices, but --devices=" << devices;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

std::vector<int64_t> shardAxes(func::FuncOp func) {
  std::vector<int64_t> axes;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    axes.push_back(shardAxis(func, i).value_or(-1));
  return axes;
}

} // namespace opfuse
