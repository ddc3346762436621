//===- Sharding.cpp - Inputs of an SPMD run, device by device -------------===//
//
// Slices global tensors along their fuse.shard axis, one slice a device,
// and checks that the model's collectives span the run's devices.
//
//===----------------------------------------------------------------------===//

#include "Sharding.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <cstring>

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

std::vector<PlanBuffer> globalSpecs(func::FuncOp func,
                                    const std::vector<PlanBuffer> &local,
                                    int64_t devices) {
  std::vector<PlanBuffer> global = local;
  for (auto [index, spec] : llvm::enumerate(global))
    if (std::optional<int64_t> axis = shardAxis(func, index))
      spec.shape[*axis] *= devices;
  return global;
}

std::vector<std::vector<HostBuffer>>
shardInputs(func::FuncOp func, const std::vector<HostBuffer> &global,
            int64_t devices) {
  std::vector<std::vector<HostBuffer>> perDevice(devices);
  for (auto [index, tensor] : llvm::enumerate(global)) {
    std::optional<int64_t> axis = shardAxis(func, index);
    for (int64_t device = 0; device < devices; ++device) {
      if (!axis) {
        perDevice[device].push_back(tensor);
        continue;
      }
      // Rows of the slice: `outer` runs of `length` contiguous bytes.
      std::vector<int64_t> shape = tensor.shape;
      shape[*axis] /= devices;
      HostBuffer slice = makeHostBuffer(tensor.dtype, shape);
      int64_t outer = 1, inner = dtypeBytes(tensor.dtype);
      for (int64_t d = 0; d < *axis; ++d)
        outer *= shape[d];
      for (size_t d = *axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
      const int64_t length = shape[*axis] * inner;
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(slice.bytes.data() + o * length,
                    tensor.bytes.data() + (o * devices + device) * length,
                    length);
      perDevice[device].push_back(std::move(slice));
    }
  }
  return perDevice;
}

} // namespace opfuse
