//===- NormalizationConverters.cpp - Instance and group norms as fuse ops -===//
//
// InstanceNormalization and GroupNormalization normalise each (sample,
// channel group) over its channels and spatial positions: the input viewed
// as rows of those elements (a reshape, free), one fuse.layer_norm over
// the rows without scale or bias, the input's shape again, then the
// per-channel scale and bias broadcast along the spatial axes. Fusion makes
// the row kernel and the affine part one kernel.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// A per-channel parameter of `channels` values (one per group for
/// GroupNormalization before opset 21, repeated over the group's
/// channels) as [C, 1, ..., 1], which broadcasts against [N, C, D...].
FailureOr<Value> channelParameter(GraphImporter &g, const Node &node, int i,
                                  RankedTensorType in, int64_t groups) {
  RankedTensorType type = g.typeOf(node, i);
  const int64_t channels = in.getDimSize(1);
  const int64_t given = groups ? groups : channels;
  if (!type || type.getRank() != 1 || type.getDimSize(0) != given ||
      type.getElementType() != in.getElementType()) {
    g.error(node) << (i == 1 ? "scale " : "bias ") << type << " is not "
                  << given << " values of " << in.getElementType()
                  << (groups ? " (one per group)" : " (one per channel)");
    return failure();
  }
  Location loc = node.loc;
  Type element = in.getElementType();
  SmallVector<int64_t> shape(in.getRank() - 1, 1);
  shape[0] = channels;
  if (const HostTensor *host = g.known(node, i); host && groups) {
    // A constant: repeated over the groups' channels here, once.
    HostTensor repeated;
    repeated.elementType = element;
    repeated.shape = shape;
    for (int64_t c = 0; c < channels; ++c)
      repeated.data.push_back(host->data[c / (channels / groups)]);
    return g.materialize(repeated, loc);
  }
  FailureOr<Value> v = g.operand(node, i);
  if (failed(v))
    return failure();
  Value p = *v;
  if (groups) {
    // [G] -> [G, 1] -> [G, C/G] -> [C]: each group's value on its channels.
    p = fuse::ReshapeOp::create(g.builder, loc,
                                RankedTensorType::get({groups, 1}, element), p);
    p = fuse::BroadcastToOp::create(
        g.builder, loc,
        RankedTensorType::get({groups, channels / groups}, element), p);
  }
  return fuse::ReshapeOp::create(g.builder, loc,
                                 RankedTensorType::get(shape, element), p)
      .getResult();
}

/// y = (x - mean) / sqrt(var + epsilon) * scale + bias over each sample's
/// groups of `channelsPerGroup` channels and their spatial positions.
LogicalResult normalizeGroups(GraphImporter &g, const Node &node,
                              int64_t groups, bool parametersPerGroup) {
  RankedTensorType in = g.typeOf(node, 0);
  if (!in || !isa<FloatType>(in.getElementType()) || in.getRank() < 3) {
    g.error(node) << "needs a float input of rank 3 or more ([N, C, D...]), "
                     "not "
                  << in;
    return failure();
  }
  const int64_t channels = in.getDimSize(1);
  if (groups <= 0 || channels % groups != 0) {
    g.error(node) << "num_groups = " << groups << " does not divide the "
                  << channels << " channels";
    return failure();
  }
  const int64_t given = parametersPerGroup ? groups : 0;
  FailureOr<Value> scale = channelParameter(g, node, 1, in, given);
  if (failed(scale))
    return failure();
  FailureOr<Value> bias = channelParameter(g, node, 2, in, given);
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(bias) || failed(x))
    return failure();
  Location loc = node.loc;
  Type element = in.getElementType();
  const int64_t rows = in.getDimSize(0) * groups;
  const int64_t rowLength = in.getNumElements() / rows;
  auto rowType = RankedTensorType::get({rows, rowLength}, element);
  Value flat = fuse::ReshapeOp::create(g.builder, loc, rowType, *x);
  Value normalized = fuse::LayerNormOp::create(
      g.builder, loc, rowType, flat, /*scale=*/nullptr, /*bias=*/nullptr,
      g.builder.getI64IntegerAttr(1),
      g.builder.getF32FloatAttr(g.floatAttr(node, "epsilon", 1e-5f)));
  Value y = fuse::ReshapeOp::create(g.builder, loc, in, normalized);
  y = fuse::MulOp::create(g.builder, loc, in, y, *scale);
  g.define(node, 0, fuse::AddOp::create(g.builder, loc, in, y, *bias));
  return success();
}

LogicalResult instanceNorm(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  return normalizeGroups(g, node,
                         in && in.getRank() >= 2 ? in.getDimSize(1) : 1,
                         /*parametersPerGroup=*/false);
}

/// GroupNormalization: opset 18 gives scale and bias per group, opset 21
/// per channel (the change that made it match PyTorch's GroupNorm).
LogicalResult groupNorm(GraphImporter &g, const Node &node) {
  std::optional<int64_t> groups = g.intAttr(node, "num_groups");
  if (!groups) {
    g.error(node) << "has no 'num_groups' attribute";
    return failure();
  }
  return normalizeGroups(g, node, *groups,
                         /*parametersPerGroup=*/node.opset < 21);
}

} // namespace

void registerNormalizationConverters(llvm::StringMap<Converter> &map) {
  map["InstanceNormalization"] = instanceNorm;
  map["GroupNormalization"] = groupNorm;
}

} // namespace opfuse::onnx_import
