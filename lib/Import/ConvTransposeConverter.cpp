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
// Gathered that way, a stride-s convolution multiplies the dilation's
// zeros too: s x s times its useful products. Where the filter is constant
// and not dilated, each output phase (the outputs s * q + r of one r per
// axis) is instead a convolution of the input itself with the taps of the
// filter that land on it: one convolution computes all phases as channels
// (ceil(K / s) taps a side), and a depth-to-space transpose interleaves
// them.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/Support/MathExtras.h"

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

/// What a phase-split ConvTranspose needs of the node: NHWC input x
/// [N, H, W, C], the ONNX filter w [C, F/groups, KH, KW], the strides, the
/// begin pads and the output's spatial sizes.
struct PhaseSplit {
  Value nhwc, w;
  int64_t groups;
  ArrayRef<int64_t> strides, pads, out;
};

/// The convolution of all of a transposed convolution's output phases, then
/// their interleaving and the pads' crop (NHWC [N, out, F]); null where the
/// filter is not a constant the importer can read.
Value phaseSplitConvTranspose(GraphImporter &g, Location loc,
                              const PhaseSplit &p) {
  auto x = cast<RankedTensorType>(p.nhwc.getType());
  auto wType = cast<RankedTensorType>(p.w.getType());
  const int64_t n = x.getDimSize(0), c = x.getDimSize(3);
  const int64_t fg = wType.getDimSize(1), groups = p.groups, cg = c / groups;
  const int64_t k[2] = {wType.getDimSize(2), wType.getDimSize(3)};
  const int64_t s[2] = {p.strides[0], p.strides[1]};
  // Per axis: taps a phase (j), the first and last phase position q the
  // crop keeps (output s * q + r less the begin pad), the conv's padding.
  int64_t j[2], q0[2], rows[2], padding[4], crop[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t length = x.getDimSize(1 + d);
    j[d] = llvm::divideCeilSigned(k[d], s[d]);
    q0[d] = std::min(p.pads[d] / s[d], j[d] - 1);
    const int64_t q1 =
        std::max(llvm::divideCeilSigned(p.pads[d] + p.out[d], s[d]), q0[d] + 1);
    padding[2 * d] = j[d] - 1 - q0[d];
    padding[2 * d + 1] = std::max<int64_t>(0, q1 - length + q0[d]);
    rows[d] = length - q0[d] + padding[2 * d + 1];
    crop[d] = p.pads[d] - s[d] * q0[d];
  }
  // Output channel (g, ry, rx, fo), tap (th, tw), channel ci of the group:
  // W[g * C/groups + ci, fo] at (ry + sy (Jh - 1 - th), rx + sx (Jw - 1 -
  // tw)), zero where that is past the filter.
  const int64_t phases = s[0] * s[1];
  Type element = x.getElementType();
  auto filterType =
      RankedTensorType::get({groups * phases * fg, j[0], j[1], cg}, element);
  Value filter = rearrangedConstant(
      g, loc, p.w, filterType, [&](ArrayRef<int64_t> at) -> int64_t {
        const int64_t group = at[0] / (phases * fg);
        const int64_t phase = at[0] / fg % phases, fo = at[0] % fg;
        const int64_t kh = phase / s[1] + s[0] * (j[0] - 1 - at[1]);
        const int64_t kw = phase % s[1] + s[1] * (j[1] - 1 - at[2]);
        if (kh >= k[0] || kw >= k[1])
          return -1;
        return (((group * cg + at[3]) * fg + fo) * k[0] + kh) * k[1] + kw;
      });
  if (!filter)
    return nullptr;
  OpBuilder &b = g.builder;
  auto ints = [&](ArrayRef<int64_t> values) {
    return b.getDenseI64ArrayAttr(values);
  };
  Value y = fuse::Conv2DOp::create(
      b, loc,
      RankedTensorType::get({n, rows[0], rows[1], filterType.getDimSize(0)},
                            element),
      p.nhwc, filter, ints({1, 1}), ints(padding), ints({1, 1}),
      b.getI64IntegerAttr(groups), ints({1, 1}));
  // Depth to space: [N, Qh, Qw, G, sy, sx, Fg] -> [N, Qh, sy, Qw, sx, G, Fg].
  y = fuse::ReshapeOp::create(
      b, loc,
      RankedTensorType::get({n, rows[0], rows[1], groups, s[0], s[1], fg},
                            element),
      y);
  y = transposed(g, loc, y, {0, 1, 4, 2, 5, 3, 6});
  y = fuse::ReshapeOp::create(
      b, loc,
      RankedTensorType::get({n, rows[0] * s[0], rows[1] * s[1], groups * fg},
                            element),
      y);
  auto resultType =
      RankedTensorType::get({n, p.out[0], p.out[1], groups * fg}, element);
  if (resultType == y.getType())
    return y;
  return fuse::SliceOp::create(b, loc, resultType, y,
                               ints({0, crop[0], crop[1], 0}),
                               ints(resultType.getShape()), ints({1, 1, 1, 1}));
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
  // Split by phase where the filter can be rearranged here and a stride
  // exceeds 1 (then each phase has ceil(K / s) < K taps along it). A
  // stride past the kernel leaves phases without a tap: their channels
  // would be zeros, and the phases' filter grows with the stride's square
  // (at most 4 times the filter while the strides are at most the kernel).
  if (dilations == SmallVector<int64_t>{1, 1} &&
      strides != SmallVector<int64_t>{1, 1} && strides[0] <= kh &&
      strides[1] <= kw)
    if (Value y = phaseSplitConvTranspose(
            g, node.loc, {nhwc, operands->second, groups, strides, pads, out}))
      return defineConvResult(g, node, y, oneD);
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
