//===- LayoutConverters.cpp - ONNX Pad, Tile, DepthToSpace, SpaceToDepth --===//
//
// Ops that only move elements, written with fuse's data movement so that
// fusion reads them in place: Pad as a concat with a constant block on
// each side (constant mode) or a gather of the input along each padded
// axis with indices computed here (edge, reflect, wrap); Tile as a
// broadcast between two reshapes; DepthToSpace and SpaceToDepth as a
// transpose between two reshapes.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

Value reshaped(GraphImporter &g, Location loc, Value x,
               ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getShape() == shape)
    return x;
  return fuse::ReshapeOp::create(
      g.builder, loc, RankedTensorType::get(shape, type.getElementType()), x);
}

/// Where output position `q` (relative to the input's first element) of
/// a padded axis of `n` elements reads, as numpy.pad has it.
int64_t padSource(StringRef mode, int64_t q, int64_t n) {
  auto mod = [](int64_t a, int64_t m) { return ((a % m) + m) % m; };
  if (mode == "edge")
    return std::clamp<int64_t>(q, 0, n - 1);
  if (mode == "wrap")
    return mod(q, n);
  // reflect: the axis mirrored about its end elements, periodically.
  if (n == 1)
    return 0;
  const int64_t period = 2 * (n - 1);
  const int64_t r = mod(q, period);
  return r < n ? r : period - r;
}

LogicalResult pad(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  const std::string mode = g.stringAttr(node, "mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap") {
    g.error(node) << "mode '" << mode << "' is not an ONNX Pad mode";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> pads = g.knownInts(node, 1, "pads");
  if (!in || failed(pads))
    return failure();
  const int64_t rank = in.getRank();
  std::optional<SmallVector<int64_t>> named;
  if (node.has(3)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 3, "axes");
    if (failed(given))
      return failure();
    named = *given;
  }
  FailureOr<SmallVector<int64_t>> axesOr = axesOrAll(g, node, in, named);
  if (failed(axesOr))
    return failure();
  SmallVector<int64_t> axes = *axesOr;
  const int64_t count = axes.size();
  if (static_cast<int64_t>(pads->size()) != 2 * count) {
    g.error(node) << "has " << pads->size() << " pads for " << count
                  << " axes (two an axis)";
    return failure();
  }
  Value fill;
  if (mode == "constant") {
    if (!node.has(2)) {
      fill = g.scalar(in.getElementType(), 0, node.loc);
    } else if (const HostTensor *value = g.known(node, 2);
               value && value->size() == 1) {
      fill = g.scalar(in.getElementType(), value->data.front(), node.loc);
    } else {
      RankedTensorType t = g.typeOf(node, 2);
      FailureOr<Value> v = g.operand(node, 2);
      if (failed(v))
        return failure();
      if (t.getNumElements() != 1 ||
          t.getElementType() != in.getElementType()) {
        g.error(node) << "constant_value " << t
                      << " is not one value of the input's type";
        return failure();
      }
      fill = reshaped(g, node.loc, *v, {});
    }
  }
  FailureOr<Value> xv = g.operand(node, 0);
  if (failed(xv))
    return failure();
  Value x = *xv;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t axis = axes[i];
    int64_t before = (*pads)[i], after = (*pads)[i + count];
    auto type = cast<RankedTensorType>(x.getType());
    const int64_t n = type.getDimSize(axis);
    // Negative pads remove elements.
    const int64_t cutBefore = std::max<int64_t>(0, -before);
    const int64_t cutAfter = std::max<int64_t>(0, -after);
    if (cutBefore + cutAfter > n || before > (1 << 20) || after > (1 << 20)) {
      g.error(node) << "pads " << before << " and " << after << " on axis "
                    << axis << " do not fit its " << n << " elements";
      return failure();
    }
    if (cutBefore || cutAfter) {
      SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
          strides(rank, 1);
      offsets[axis] = cutBefore;
      sizes[axis] = n - cutBefore - cutAfter;
      x = fuse::SliceOp::create(
          g.builder, node.loc,
          RankedTensorType::get(sizes, type.getElementType()), x,
          g.builder.getDenseI64ArrayAttr(offsets),
          g.builder.getDenseI64ArrayAttr(sizes),
          g.builder.getDenseI64ArrayAttr(strides));
      type = cast<RankedTensorType>(x.getType());
    }
    before = std::max<int64_t>(before, 0);
    after = std::max<int64_t>(after, 0);
    if (before == 0 && after == 0)
      continue;
    const int64_t kept = type.getDimSize(axis);
    if (mode != "constant") {
      if (kept == 0) {
        g.error(node) << "mode '" << mode << "' pads an empty axis " << axis;
        return failure();
      }
      SmallVector<int64_t> indices;
      for (int64_t o = 0; o < before + kept + after; ++o)
        indices.push_back(padSource(mode, o - before, kept));
      x = gatherAlong(g, node.loc, x, axis, indices);
      continue;
    }
    x = padAxis(g, node.loc, x, axis, before, after, fill);
  }
  g.define(node, 0, x);
  return success();
}

/// Tile: x as [1, d0, 1, d1, ...], broadcast to [r0, d0, r1, d1, ...],
/// then [r0 d0, r1 d1, ...].
LogicalResult tile(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  FailureOr<SmallVector<int64_t>> repeats = g.knownInts(node, 1, "repeats");
  if (!in || failed(repeats))
    return failure();
  if (static_cast<int64_t>(repeats->size()) != in.getRank() ||
      llvm::any_of(*repeats,
                   [](int64_t r) { return r < 1 || r > (1 << 20); })) {
    g.error(node) << "repeats must give each of the " << in.getRank()
                  << " axes a count from 1 to 2^20";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  if (llvm::all_of(*repeats, [](int64_t r) { return r == 1; })) {
    g.define(node, 0, *x);
    return success();
  }
  SmallVector<int64_t> spread, broadcast, result;
  for (auto [d, r] : llvm::zip(in.getShape(), *repeats)) {
    spread.append({1, d});
    broadcast.append({r, d});
    result.push_back(r * d);
  }
  Value y = reshaped(g, node.loc, *x, spread);
  y = fuse::BroadcastToOp::create(
      g.builder, node.loc,
      RankedTensorType::get(broadcast, in.getElementType()), y);
  g.define(node, 0, reshaped(g, node.loc, y, result));
  return success();
}

/// DepthToSpace and SpaceToDepth: a reshape, a transpose and a reshape.
LogicalResult blocksAndDepth(GraphImporter &g, const Node &node, bool toSpace) {
  RankedTensorType in = g.typeOf(node, 0);
  std::optional<int64_t> size = g.intAttr(node, "blocksize");
  if (!in || in.getRank() != 4 || !size || *size < 1) {
    g.error(node) << "needs an NCHW input and a positive blocksize";
    return failure();
  }
  const int64_t b = *size, n = in.getDimSize(0), c = in.getDimSize(1),
                h = in.getDimSize(2), w = in.getDimSize(3);
  const std::string mode = g.stringAttr(node, "mode", "DCR");
  if (toSpace ? c % (b * b) != 0 : (h % b != 0 || w % b != 0)) {
    g.error(node) << "blocksize " << b << " does not divide "
                  << (toSpace ? "the channels of " : "the height and width of ")
                  << in;
    return failure();
  }
  if (toSpace && mode != "DCR" && mode != "CRD") {
    g.error(node) << "mode '" << mode << "' is neither DCR nor CRD";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> split, perm, result;
  if (toSpace && mode == "DCR") {
    split = {n, b, b, c / (b * b), h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (toSpace) {
    split = {n, c / (b * b), b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    split = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
  }
  result = toSpace ? SmallVector<int64_t>{n, c / (b * b), h * b, w * b}
                   : SmallVector<int64_t>{n, c * b * b, h / b, w / b};
  Value y = reshaped(g, node.loc, *x, split);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(split[p]);
  y = fuse::TransposeOp::create(
      g.builder, node.loc, RankedTensorType::get(moved, in.getElementType()), y,
      g.builder.getDenseI64ArrayAttr(perm));
  g.define(node, 0, reshaped(g, node.loc, y, result));
  return success();
}

} // namespace

void registerLayoutConverters(llvm::StringMap<Converter> &map) {
  map["Pad"] = pad;
  map["Tile"] = tile;
  map["DepthToSpace"] = [](GraphImporter &g, const Node &n) {
    return blocksAndDepth(g, n, /*toSpace=*/true);
  };
  map["SpaceToDepth"] = [](GraphImporter &g, const Node &n) {
    return blocksAndDepth(g, n, /*toSpace=*/false);
  };
}

} // namespace opfuse::onnx_import
