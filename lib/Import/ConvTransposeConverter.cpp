//===- ConvTransposeConverter.cpp - ONNX ConvTranspose as a conv2d --------===//
//
// A transposed convolution scatters each input pixel's products over a
// window of the output. Gathered instead, it is a convolution of the input
// dilated by the strides (zeros between its pixels: fuse.conv2d's
// input_dilation, which the GEMM kernels read without storing the zeros),
// padded by the dilated kernel's extent less the pads, with each group's
// filter transposed between input and output channels and flipped in space.
// A constant filter (every exported model's) is rearranged here, once.
// 1-D ConvTranspose (NCL) runs as the 2-D one over rows of height 1.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// W [C, F/groups, KH, KW] as fuse.conv2d's filter [F, KH, KW, C/groups]:
/// output channel o = g * F/groups + fo and channel ci of its group read
/// W[g * C/groups + ci, fo] at the mirrored tap.
Value convFilterOf(GraphImporter &g, Location loc, Value w, int64_t groups) {
  auto type = cast<RankedTensorType>(w.getType());
  const int64_t c = type.getDimSize(0), fg = type.getDimSize(1);
  const int64_t kh = type.getDimSize(2), kw = type.getDimSize(3);
  const int64_t cg = c / groups, f = fg * groups;
  Type element = type.getElementType();
  auto filterType = RankedTensorType::get({f, kh, kw, cg}, element);
  if (Value folded =
          rearrangedConstant(g, loc, w, filterType, [&](ArrayRef<int64_t> at) {
            const int64_t group = at[0] / fg, fo = at[0] % fg;
            const int64_t channel = group * cg + at[3];
            return ((channel * fg + fo) * kh + (kh - 1 - at[1])) * kw +
                   (kw - 1 - at[2]);
          }))
    return folded;
  // A filter computed at run time: the same rearrangement as data
  // movement, which fusion reads in place.
  Value v = fuse::ReshapeOp::create(
      g.builder, loc, RankedTensorType::get({groups, cg, fg, kh, kw}, element),
      w);
  v = transposed(g, loc, v, {0, 2, 3, 4, 1});
  v = fuse::ReshapeOp::create(g.builder, loc, filterType, v);
  auto reversed = [](int64_t n) {
    SmallVector<int64_t> indices;
    for (int64_t i = n - 1; i >= 0; --i)
      indices.push_back(i);
    return indices;
  };
  v = gatherAlong(g, loc, v, 1, reversed(kh));
  return gatherAlong(g, loc, v, 2, reversed(kw));
}

/// ConvTranspose's pads as its output_shape, or auto_pad's SAME (the input
/// times the strides), sets them: the difference from the extent `full`
/// split by auto_pad; VALID pads nothing; failure after a diagnostic.
LogicalResult applyOutputShape(GraphImporter &g, const Node &node,
                               RankedTensorType x, ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> full, bool oneD,
                               SmallVectorImpl<int64_t> &pads) {
  std::optional<SmallVector<int64_t>> outputShape =
      g.intsAttr(node, "output_shape");
  const std::string autoPad = g.stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER" && autoPad != "VALID") {
    g.error(node) << "auto_pad '" << autoPad << "' is not an ONNX value";
    return failure();
  }
  if (!outputShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    outputShape = SmallVector<int64_t>{x.getDimSize(2) * strides[0],
                                       x.getDimSize(3) * strides[1]};
  if (autoPad == "VALID")
    pads.assign({0, 0, 0, 0});
  if (outputShape) {
    // The spatial sizes, with or without the batch and channels before.
    SmallVector<int64_t> spatial(
        outputShape->end() -
            std::min<size_t>(outputShape->size(), oneD ? 1 : 2),
        outputShape->end());
    if (oneD && spatial.size() == 1)
      spatial.insert(spatial.begin(), 1);
    if (spatial.size() != 2) {
      g.error(node) << "output_shape must give the spatial sizes";
      return failure();
    }
    for (int d = 0; d < 2; ++d) {
      const int64_t total = full[d] - spatial[d];
      if (total < 0 || spatial[d] < 1) {
        g.error(node) << "output_shape " << spatial[d] << " is larger than "
                      << "the transposed convolution's extent " << full[d];
        return failure();
      }
      splitPadding(autoPad, total, d, pads);
    }
  }
  return success();
}

LogicalResult convTranspose(GraphImporter &g, const Node &node) {
  FailureOr<ConvOperandTypes> types = convOperandTypes(
      g, node, "transposed convolutions", "[C, M/group, KH, KW]");
  if (failed(types))
    return failure();
  RankedTensorType x = types->x, w = types->w;
  const bool oneD = types->oneD;
  auto ints = [&](StringRef name) { return windowInts(g, node, name, oneD); };
  const int64_t groups = g.intAttr(node, "group", 1);
  const int64_t c = x.getDimSize(1);
  const int64_t kh = w.getDimSize(2), kw = w.getDimSize(3);
  if (groups < 1 || c % groups != 0 || w.getDimSize(0) != c) {
    g.error(node) << "filter " << w << " does not fit input " << x << " in "
                  << groups << " groups";
    return failure();
  }
  const int64_t f = w.getDimSize(1) * groups;
  SmallVector<int64_t> strides =
      ints("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ints("dilations").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      ints("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  // output_padding is one value per axis: a 1-D one gets 0 for the height.
  SmallVector<int64_t> outputPadding = {0, 0};
  if (std::optional<SmallVector<int64_t>> given =
          g.intsAttr(node, "output_padding")) {
    outputPadding = *given;
    if (oneD && given->size() == 1)
      outputPadding = {0, (*given)[0]};
  }
  if (std::optional<SmallVector<int64_t>> shape = ints("kernel_shape");
      shape && (*shape != SmallVector<int64_t>{kh, kw})) {
    g.error(node) << "kernel_shape does not match filter " << w;
    return failure();
  }
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      outputPadding.size() != 2 || !inRange(strides, 1) ||
      !inRange(dilations, 1) || !inRange(pads, 0) ||
      !inRange(outputPadding, 0)) {
    g.error(node) << "strides, dilations, pads and output_padding must have "
                     "2, 2, 4 and 2 values, positive (pads and "
                     "output_padding non-negative) and at most 2^20";
    return failure();
  }
  for (int d = 0; d < 2; ++d)
    if (outputPadding[d] >= std::max(strides[d], dilations[d])) {
      g.error(node) << "output_padding " << outputPadding[d]
                    << " must be less than the stride or the dilation";
      return failure();
    }
  // The extent of the output before the pads cut it, per axis.
  int64_t full[2];
  for (int d = 0; d < 2; ++d)
    full[d] = strides[d] * (x.getDimSize(2 + d) - 1) + outputPadding[d] +
              dilations[d] * ((d ? kw : kh) - 1) + 1;
  if (failed(applyOutputShape(g, node, x, strides, full, oneD, pads)))
    return failure();
  SmallVector<int64_t> out(2);
  for (int d = 0; d < 2; ++d) {
    out[d] = full[d] - pads[d] - pads[d + 2];
    if (out[d] < 1) {
      g.error(node) << "the pads leave no output";
      return failure();
    }
  }

  FailureOr<std::pair<Value, Value>> operands = convOperands(g, node, oneD);
  if (failed(operands))
    return failure();
  Value nhwc = operands->first;
  Value ohwi = convFilterOf(g, node.loc, operands->second, groups);
  // The convolution's padding: the dilated kernel's extent less the pads
  // (and output_padding more at the end); a pad beyond that extent crops
  // the output instead.
  int64_t padding[4], crop[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t reach = dilations[d] * ((d ? kw : kh) - 1);
    const int64_t before = reach - pads[d];
    const int64_t after = reach - pads[d + 2] + outputPadding[d];
    padding[2 * d] = std::max<int64_t>(before, 0);
    padding[2 * d + 1] = std::max<int64_t>(after, 0);
    crop[d] = std::max<int64_t>(-before, 0);
  }
  Type element = x.getElementType();
  SmallVector<int64_t> convShape = {x.getDimSize(0), 0, 0, f};
  for (int d = 0; d < 2; ++d)
    convShape[1 + d] = (x.getDimSize(2 + d) - 1) * strides[d] + 1 +
                       padding[2 * d] + padding[2 * d + 1] -
                       dilations[d] * ((d ? kw : kh) - 1);
  Value y = fuse::Conv2DOp::create(
      g.builder, node.loc, RankedTensorType::get(convShape, element), nhwc,
      ohwi, g.builder.getDenseI64ArrayAttr({1, 1}),
      g.builder.getDenseI64ArrayAttr(padding),
      g.builder.getDenseI64ArrayAttr(dilations),
      g.builder.getI64IntegerAttr(groups),
      g.builder.getDenseI64ArrayAttr(strides));
  auto resultType =
      RankedTensorType::get({x.getDimSize(0), out[0], out[1], f}, element);
  if (convShape[1] != out[0] || convShape[2] != out[1])
    y = fuse::SliceOp::create(
        g.builder, node.loc, resultType, y,
        g.builder.getDenseI64ArrayAttr({0, crop[0], crop[1], 0}),
        g.builder.getDenseI64ArrayAttr(resultType.getShape()),
        g.builder.getDenseI64ArrayAttr({1, 1, 1, 1}));
  return defineConvResult(g, node, y, oneD);
}

} // namespace

void registerConvTransposeConverter(llvm::StringMap<Converter> &map) {
  map["ConvTranspose"] = convTranspose;
}

} // namespace opfuse::onnx_import
