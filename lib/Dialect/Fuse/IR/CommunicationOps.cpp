//===- CommunicationOps.cpp - Collectives ---------------------------------===//
//
// all_reduce, all_gather and reduce_scatter: shape rules and the ring
// algorithm's per-device traffic, which the cost model divides by link
// bandwidth.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

namespace {
/// `bytes * (devices - 1) / devices`: what a ring step sequence moves.
int64_t ringShare(int64_t bytes, int64_t devices) {
  return bytes * (devices - 1) / devices;
}

/// Checks `axis` of a collective against the input's rank.
LogicalResult checkAxis(std::optional<Location> loc, StringRef name,
                        RankedTensorType input, int64_t axis) {
  if (axis >= input.getRank())
    return emitShapeError(loc, name,
                          "axis " + Twine(axis) +
                              " is out of range for an input of rank " +
                              Twine(input.getRank()));
  return success();
}
} // namespace

bool isCollective(Operation *op) {
  return isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op);
}

std::optional<std::string> whyNotOneNcclCall(Operation *op) {
  // NCCL's gather and scatter move contiguous shards in rank order: a
  // concatenation along the outermost dimension that is not 1.
  std::optional<int64_t> axis;
  RankedTensorType sharded;
  if (auto gather = dyn_cast<AllGatherOp>(op)) {
    axis = gather.getAxis();
    sharded = cast<RankedTensorType>(gather.getInput().getType());
  } else if (auto scatter = dyn_cast<ReduceScatterOp>(op)) {
    axis = scatter.getAxis();
    sharded = cast<RankedTensorType>(scatter.getType());
  }
  if (!axis)
    return std::nullopt;
  for (int64_t d = 0; d < *axis; ++d)
    if (sharded.getDimSize(d) != 1)
      return ("'" + op->getName().getStringRef() + "' along axis " +
              Twine(*axis) + " of " + formatShape(sharded.getShape()) +
              " shards: NCCL gathers and scatters contiguous shards "
              "(concatenation along the outermost dimension larger than 1), "
              "so this one would need a transpose around the call, which "
              "is not built yet")
          .str();
  return std::nullopt;
}

int64_t AllReduceOp::getFlops() {
  return ringShare(getNumElements(getType()), getDevices());
}
int64_t AllReduceOp::getCommunicationBytes() {
  return 2 * ringShare(getByteSize(getType()), getDevices());
}

LogicalResult AllGatherOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkAxis(loc, getOperationName(), input, adaptor.getAxis())))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape[adaptor.getAxis()] *= adaptor.getDevices();
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

int64_t AllGatherOp::getFlops() { return 0; }
int64_t AllGatherOp::getCommunicationBytes() {
  return ringShare(getByteSize(getType()), getDevices());
}

LogicalResult
ReduceScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  const int64_t axis = adaptor.getAxis();
  const int64_t devices = adaptor.getDevices();
  if (failed(checkAxis(loc, getOperationName(), input, axis)))
    return failure();
  if (input.getDimSize(axis) % devices != 0)
    return emitShapeError(
        loc, getOperationName(),
        "dimension " + Twine(axis) + " (" + Twine(input.getDimSize(axis)) +
            ") does not divide evenly among " + Twine(devices) + " devices");
  SmallVector<int64_t> shape(input.getShape());
  shape[axis] /= devices;
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

int64_t ReduceScatterOp::getFlops() {
  return ringShare(getNumElements(getInput().getType()), getDevices());
}
int64_t ReduceScatterOp::getCommunicationBytes() {
  return ringShare(getByteSize(getInput().getType()), getDevices());
}

} // namespace opfuse::fuse
