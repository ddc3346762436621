//===- Converters.cpp - The table of ONNX op converters -------------------===//

#include "Converters.h"

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

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

} // namespace opfuse::onnx_import
