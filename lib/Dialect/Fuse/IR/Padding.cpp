//===- Padding.cpp - A tensor padded along one axis -----------------------===//
//
// The concat a pad is made of (Padding.h).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/Padding.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

Value buildPadAlong(OpBuilder &b, Location loc, Value x, int64_t axis,
                    int64_t before, int64_t after,
                    function_ref<Value(RankedTensorType)> makeBlock) {
  if (before == 0 && after == 0)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  auto block = [&](int64_t size) {
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = size;
    return makeBlock(RankedTensorType::get(shape, type.getElementType()));
  };
  SmallVector<Value> parts;
  if (before)
    parts.push_back(block(before));
  parts.push_back(x);
  if (after)
    parts.push_back(block(after));
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] += before + after;
  return ConcatOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), parts, axis);
}

} // namespace opfuse::fuse
