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
  RankedTensorType x = g.typeOf(node, 0), w = g.typeOf(node, 1);
  const bool oneD = x && w && x.getRank() == 3 && w.getRank() == 3;
  if (oneD) {
    x = asRowOfHeightOne(x);
    w = asRowOfHeightOne(w);
  }
  auto ints = [&](StringRef name, int64_t height) {
    std::optional<SmallVector<int64_t>> v = g.intsAttr(node, name);
    return oneD ? lifted(v, height) : v;
  };
  if (!x || !w || x.getRank() != 4 || w.getRank() != 4 ||
      !isa<FloatType>(x.getElementType()) ||
      x.getElementType() != w.getElementType()) {
    if (x && x.getRank() != 4)
      g.unsupported(node) << "only 1-D and 2-D transposed convolutions "
                             "(NCL and NCHW inputs) are supported, not "
                          << x;
    else
      g.error(node) << "expects float NCHW input and [C, M/group, KH, KW] "
                       "filter of one type";
    return failure();
  }
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
      ints("strides", 1).value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ints("dilations", 1).value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      ints("pads", 0).value_or(SmallVector<int64_t>{0, 0, 0, 0});
  // output_padding is one value per axis: a 1-D one gets 0 for the height.
  SmallVector<int64_t> outputPadding = {0, 0};
  if (std::optional<SmallVector<int64_t>> given =
          g.intsAttr(node, "output_padding")) {
    outputPadding = *given;
    if (oneD && given->size() == 1)
      outputPadding = {0, (*given)[0]};
  }
  if (std::optional<SmallVector<int64_t>> shape = ints("kernel_shape", 1);
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

  FailureOr<Value> input = g.operand(node, 0), filter = g.operand(node, 1);
  if (failed(input) || failed(filter))
    return failure();
  if (oneD) {
    input = asRowOfHeightOne(g, node.loc, *input);
    filter = asRowOfHeightOne(g, node.loc, *filter);
  }
  Value nhwc = transposed(g, node.loc, *input, {0, 2, 3, 1});
  Value ohwi = convFilterOf(g, node.loc, *filter, groups);
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
