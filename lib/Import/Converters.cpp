//===- Converters.cpp - The table of ONNX op converters -------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/Padding.h"

using namespace mlir;

namespace opfuse::onnx_import {

const llvm::StringMap<Converter> &converters() {
  static const llvm::StringMap<Converter> table = [] {
    llvm::StringMap<Converter> map;
    registerActivationConverters(map);
    registerElementwiseConverters(map);
    registerShapeConverters(map);
    registerComputeConverters(map);
    registerVisionConverters(map);
    registerNormalizationConverters(map);
    registerLayoutConverters(map);
    registerResizeConverter(map);
    registerConvTransposeConverter(map);
    registerEinsumConverter(map);
    return map;
  }();
  return table;
}

std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  llvm::SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

Value padAxis(GraphImporter &g, Location loc, Value x, int64_t axis,
              int64_t before, int64_t after, Value fill) {
  return fuse::buildPadAlong(
      g.builder, loc, x, axis, before, after, [&](RankedTensorType type) {
        return fuse::BroadcastToOp::create(g.builder, loc, type, fill)
            .getResult();
      });
}

Value gatherAlong(GraphImporter &g, Location loc, Value x, int64_t axis,
                  ArrayRef<int64_t> indices) {
  auto type = cast<RankedTensorType>(x.getType());
  bool identity = static_cast<int64_t>(indices.size()) == type.getDimSize(axis);
  for (auto [i, index] : llvm::enumerate(indices))
    identity &= index == static_cast<int64_t>(i);
  if (identity)
    return x;
  HostTensor host;
  host.elementType = g.builder.getI32Type();
  host.shape = {static_cast<int64_t>(indices.size())};
  host.data.assign(indices.begin(), indices.end());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = indices.size();
  return fuse::GatherOp::create(
      g.builder, loc, RankedTensorType::get(shape, type.getElementType()), x,
      g.materialize(host, loc), axis);
}

FailureOr<SmallVector<int64_t>>
axesOrAll(GraphImporter &g, const Node &node, RankedTensorType in,
          std::optional<SmallVector<int64_t>> given) {
  SmallVector<int64_t> axes;
  if (!given) {
    for (int64_t d = 0; d < in.getRank(); ++d)
      axes.push_back(d);
    return axes;
  }
  for (int64_t a : *given) {
    std::optional<int64_t> axis = normalizeAxis(a, in.getRank());
    if (!axis) {
      g.error(node) << "axis " << a << " is outside the rank of " << in;
      return failure();
    }
    axes.push_back(*axis);
  }
  return axes;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

} // namespace opfuse::onnx_import
