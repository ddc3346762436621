//===- ResizeConverter.cpp - ONNX Resize as gathers along each axis -------===//
//
// Resize in its nearest and linear modes is separable: each resized axis
// reads, for every output position, one input position (nearest) or two
// (linear, with weights that sum to one). The importer computes those
// positions and weights from the specification's coordinate transforms
// and rounding modes, once, and the graph is a fuse.gather along the axis
// at constant indices (times constant weights for linear), which fusion
// reads in place. Positions past the ends are clamped to the edge, as the
// specification's reference does.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <cmath>

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// How one axis is resized: its input and output lengths and the scale
/// the coordinate transform divides by. `length` is the resized length the
/// transforms use: in x scale, before it is floored to `out`, when scales
/// are given (as the specification's reference has it), else `out`.
struct AxisResize {
  int64_t in = 0, out = 0;
  double scale = 1, length = 0;
};

/// The input coordinate of output position `x` (ONNX's
/// coordinate_transformation_mode); nullopt for a mode it does not have.
std::optional<double> sourceCoordinate(StringRef mode, double x,
                                       const AxisResize &a) {
  if (mode == "half_pixel")
    return (x + 0.5) / a.scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    const double adjustment = a.out / (a.scale * a.in);
    const double center = a.in / 2.0;
    return center * (1 - adjustment) + (x + 0.5) / a.scale - 0.5;
  }
  if (mode == "pytorch_half_pixel")
    return a.length > 1 ? (x + 0.5) / a.scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return a.length == 1 ? 0.0 : x * (a.in - 1) / (a.length - 1);
  if (mode == "asymmetric")
    return x / a.scale;
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / a.scale;
  return std::nullopt;
}

/// The input position nearest to `x` by ONNX's nearest_mode.
std::optional<double> nearest(StringRef mode, double x) {
  if (mode == "round_prefer_floor")
    return x == std::floor(x) + 0.5 ? std::floor(x) : std::round(x);
  if (mode == "round_prefer_ceil")
    return std::round(x);
  if (mode == "floor")
    return std::floor(x);
  if (mode == "ceil")
    return std::ceil(x);
  return std::nullopt;
}

/// A constant vector of `weights` shaped [out, 1, ..., 1] to broadcast
/// along `axis` of a tensor of `rank`.
Value weightsAlong(GraphImporter &g, Location loc, Type element,
                   ArrayRef<double> weights, int64_t axis, int64_t rank) {
  HostTensor host;
  host.elementType = element;
  host.shape.assign(rank - axis, 1);
  host.shape[0] = weights.size();
  host.data.assign(weights.begin(), weights.end());
  return g.materialize(host, loc);
}

LogicalResult resize(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  const std::string mode = g.stringAttr(node, "mode", "nearest");
  const std::string transform =
      g.stringAttr(node, "coordinate_transformation_mode", "half_pixel");
  const std::string rounding =
      g.stringAttr(node, "nearest_mode", "round_prefer_floor");
  if (!in) {
    g.error(node) << "expects an input";
    return failure();
  }
  if (mode != "nearest" && mode != "linear") {
    g.unsupported(node) << "mode '" << mode
                        << "' is not supported (nearest and linear are)";
    return failure();
  }
  if (transform == "tf_crop_and_resize" || g.intAttr(node, "antialias", 0) ||
      g.stringAttr(node, "keep_aspect_ratio_policy", "stretch") != "stretch") {
    g.unsupported(node) << "tf_crop_and_resize, antialias and "
                           "keep_aspect_ratio_policy other than 'stretch' "
                           "are not supported";
    return failure();
  }
  const int64_t rank = in.getRank();
  FailureOr<SmallVector<int64_t>> axesOr =
      axesOrAll(g, node, in, g.intsAttr(node, "axes"));
  if (failed(axesOr))
    return failure();
  SmallVector<int64_t> axes = *axesOr;
  // Sizes, or scales: ONNX gives one of the two.
  SmallVector<AxisResize> resized(rank);
  for (int64_t d = 0; d < rank; ++d)
    resized[d] = {in.getDimSize(d), in.getDimSize(d), 1.0,
                  static_cast<double>(in.getDimSize(d))};
  const HostTensor *scales = node.has(2) ? g.known(node, 2) : nullptr;
  if ((node.has(2) && !scales) || (node.has(3) && !g.known(node, 3))) {
    g.unsupported(node) << "scales or sizes computed at run time are not "
                           "supported (the output's shape must be known "
                           "when compiling)";
    return failure();
  }
  const bool hasScales = scales && scales->size() > 0;
  const bool hasSizes = node.has(3);
  if (hasScales == hasSizes) {
    g.error(node) << "needs scales or sizes, exactly one of them";
    return failure();
  }
  SmallVector<int64_t> sizes;
  if (hasSizes) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 3, "sizes");
    if (failed(given))
      return failure();
    sizes = *given;
  }
  const int64_t count = hasScales ? scales->size() : sizes.size();
  if (count != static_cast<int64_t>(axes.size())) {
    g.error(node) << "gives " << count << " scales or sizes for " << axes.size()
                  << " axes";
    return failure();
  }
  for (auto [i, axis] : llvm::enumerate(axes)) {
    AxisResize &a = resized[axis];
    if (hasScales) {
      a.scale = scales->data[i];
      a.length = a.in * a.scale;
      a.out = static_cast<int64_t>(std::floor(a.length));
    } else {
      a.out = sizes[i];
      a.length = a.out;
      a.scale = a.in ? static_cast<double>(a.out) / a.in : 1.0;
    }
    if (a.scale <= 0 || a.out < 1 || a.out > (int64_t(1) << 24)) {
      g.error(node) << "resizes axis " << axis << " of " << a.in
                    << " elements to " << a.out << " (scale " << a.scale << ")";
      return failure();
    }
  }
  if (!sourceCoordinate(transform, 0, resized[0]) || !nearest(rounding, 0.5)) {
    g.error(node) << "coordinate_transformation_mode '" << transform
                  << "' or nearest_mode '" << rounding
                  << "' is not an ONNX value";
    return failure();
  }
  if (mode == "linear" && !isa<FloatType>(in.getElementType())) {
    g.unsupported(node) << "linear resizing of " << in.getElementType()
                        << " values is not supported";
    return failure();
  }
  FailureOr<Value> xv = g.operand(node, 0);
  if (failed(xv))
    return failure();
  Value x = *xv;
  for (int64_t axis = 0; axis < rank; ++axis) {
    const AxisResize &a = resized[axis];
    if (a.in == a.out && a.scale == 1.0 && transform != "tf_half_pixel_for_nn")
      continue;
    SmallVector<int64_t> low, high;
    SmallVector<double> highWeight, lowWeight;
    for (int64_t o = 0; o < a.out; ++o) {
      const double c = *sourceCoordinate(transform, o, a);
      if (mode == "nearest") {
        low.push_back(std::clamp<int64_t>(
            static_cast<int64_t>(*nearest(rounding, c)), 0, a.in - 1));
        continue;
      }
      const double floor = std::floor(c);
      const double w = c - floor;
      low.push_back(std::clamp<int64_t>(floor, 0, a.in - 1));
      high.push_back(std::clamp<int64_t>(floor + 1, 0, a.in - 1));
      lowWeight.push_back(1 - w);
      highWeight.push_back(w);
    }
    if (mode == "nearest") {
      x = gatherAlong(g, node.loc, x, axis, low);
      continue;
    }
    Type element = in.getElementType();
    Value lo = gatherAlong(g, node.loc, x, axis, low);
    Value hi = gatherAlong(g, node.loc, x, axis, high);
    auto type = cast<RankedTensorType>(lo.getType());
    Value y = fuse::MulOp::create(
        g.builder, node.loc, type, lo,
        weightsAlong(g, node.loc, element, lowWeight, axis, rank));
    Value z = fuse::MulOp::create(
        g.builder, node.loc, type, hi,
        weightsAlong(g, node.loc, element, highWeight, axis, rank));
    x = fuse::AddOp::create(g.builder, node.loc, type, y, z);
  }
  g.define(node, 0, x);
  return success();
}

} // namespace

void registerResizeConverter(llvm::StringMap<Converter> &map) {
  map["Resize"] = resize;
}

} // namespace opfuse::onnx_import
