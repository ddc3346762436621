//===- VisionConverters.cpp - ONNX convolutions and their companions ------===//
//
// Conv in ONNX's NCHW with OIHW filters becomes fuse.conv2d, which is NHWC
// with OHWI filters: transposes on both sides, which the compiler lays out
// as views; a 1-D Conv (NCL) is the 2-D one over rows of height 1.
// BatchNormalization at inference folds, on the host, into one
// scale and one shift per channel. GlobalAveragePool is a mean over the
// spatial axes.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace opfuse::onnx_import {

/// Whether every value lies in [low, 2^20]: window attributes a hostile
/// file could make overflow the shapes computed from them.
bool inRange(ArrayRef<int64_t> values, int64_t low) {
  return llvm::all_of(values,
                      [&](int64_t v) { return v >= low && v <= (1 << 20); });
}

Value rearrangedConstant(GraphImporter &g, Location loc, Value x,
                         RankedTensorType type,
                         function_ref<int64_t(ArrayRef<int64_t>)> sourceOf) {
  auto constant = x.getDefiningOp<fuse::ConstantOp>();
  // A reshaped constant (a 1-D convolution's filter as a row of height 1)
  // holds the same elements in the same order.
  if (auto reshape = x.getDefiningOp<fuse::ReshapeOp>(); !constant && reshape)
    constant = reshape.getInput().getDefiningOp<fuse::ConstantOp>();
  if (!constant)
    return nullptr;
  const int64_t rank = type.getRank(), count = type.getNumElements();
  const int64_t sourceCount =
      cast<RankedTensorType>(x.getType()).getNumElements();
  // The source of every output element, in output order (-1: zero).
  std::vector<int64_t> source;
  source.reserve(count);
  SmallVector<int64_t> coordinate(rank, 0);
  for (int64_t o = 0; o < count; ++o) {
    source.push_back(sourceOf(coordinate));
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coordinate[d] < type.getDimSize(d))
        break;
      coordinate[d] = 0;
    }
  }
  const bool zeros = llvm::is_contained(source, -1);
  Attribute value = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat() && !zeros && sourceCount == count)
      return fuse::ConstantOp::create(g.builder, loc, type,
                                      dense.reshape(type));
    SmallVector<Attribute> values(dense.getValues<Attribute>());
    Attribute zero = g.builder.getZeroAttr(type.getElementType());
    SmallVector<Attribute> out;
    out.reserve(count);
    for (int64_t i : source)
      out.push_back(i < 0 ? zero : values[i]);
    return fuse::ConstantOp::create(g.builder, loc, type,
                                    DenseElementsAttr::get(type, out));
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || sourceCount == 0 || blob->getData().size() % sourceCount != 0)
    return nullptr;
  ArrayRef<char> data = blob->getData();
  const size_t width = data.size() / sourceCount;
  // Zero-initialised: the bytes of a zero of every element type fuse has.
  AsmResourceBlob out = HeapAsmResourceBlob::allocate(
      count * width, alignof(int64_t), /*dataIsMutable=*/true);
  MutableArrayRef<char> bytes = out.getMutableData();
  std::memset(bytes.data(), 0, bytes.size());
  for (auto [o, i] : llvm::enumerate(source))
    if (i >= 0)
      std::memcpy(bytes.data() + o * width, data.data() + i * width, width);
  return fuse::ConstantOp::create(
      g.builder, loc, type,
      DenseResourceElementsAttr::get(type, "onnx_weight", std::move(out)));
}

static Value transposedConstant(GraphImporter &g, Location loc, Value x,
                                ArrayRef<int64_t> perm, RankedTensorType type) {
  auto in = cast<RankedTensorType>(x.getType());
  const int64_t rank = in.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * in.getDimSize(d + 1);
  return rearrangedConstant(g, loc, x, type, [&](ArrayRef<int64_t> at) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += at[d] * inStrides[perm[d]];
    return offset;
  });
}

Value transposed(GraphImporter &g, Location loc, Value x,
                 ArrayRef<int64_t> perm) {
  auto in = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.getDimSize(p));
  auto type = RankedTensorType::get(shape, in.getElementType());
  if (Value folded = transposedConstant(g, loc, x, perm, type))
    return folded;
  return fuse::TransposeOp::create(g.builder, loc, type, x,
                                   g.builder.getDenseI64ArrayAttr(perm));
}

/// A 1-D convolution's attribute as the 2-D one of a row of height 1:
/// `height` (1 for strides and dilations, 0 for pads) before each value.
std::optional<SmallVector<int64_t>>
lifted(std::optional<SmallVector<int64_t>> v, int64_t height) {
  if (!v)
    return v;
  SmallVector<int64_t> out;
  // Pads [begin, end] become [top, left, bottom, right] = [0, begin, 0,
  // end], as the others become [1, value].
  for (int64_t value : *v)
    out.append({height, value});
  return out;
}

/// A [N, C, L] tensor (or [O, I, K] filter) as [N, C, 1, L].
Value asRowOfHeightOne(GraphImporter &g, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return fuse::ReshapeOp::create(
      g.builder, loc,
      RankedTensorType::get(
          {type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)},
          type.getElementType()),
      v);
}

RankedTensorType asRowOfHeightOne(RankedTensorType type) {
  return RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)},
      type.getElementType());
}

FailureOr<ConvOperandTypes> convOperandTypes(GraphImporter &g, const Node &node,
                                             StringRef what,
                                             StringRef filterLayout) {
  ConvOperandTypes t{g.typeOf(node, 0), g.typeOf(node, 1)};
  t.oneD = t.x && t.w && t.x.getRank() == 3 && t.w.getRank() == 3;
  if (t.oneD) {
    t.x = asRowOfHeightOne(t.x);
    t.w = asRowOfHeightOne(t.w);
  }
  if (!t.x || !t.w || t.x.getRank() != 4 || t.w.getRank() != 4 ||
      !isa<FloatType>(t.x.getElementType()) ||
      t.x.getElementType() != t.w.getElementType()) {
    if (t.x && t.x.getRank() != 4)
      g.unsupported(node) << "only 1-D and 2-D " << what
                          << " (NCL and NCHW inputs) are supported, not "
                          << t.x;
    else
      g.error(node) << "expects float NCHW input and " << filterLayout
                    << " filter of one type";
    return failure();
  }
  return t;
}

FailureOr<std::pair<Value, Value>> convOperands(GraphImporter &g,
                                                const Node &node, bool oneD) {
  FailureOr<Value> input = g.operand(node, 0), filter = g.operand(node, 1);
  if (failed(input) || failed(filter))
    return failure();
  if (oneD) {
    input = asRowOfHeightOne(g, node.loc, *input);
    filter = asRowOfHeightOne(g, node.loc, *filter);
  }
  return std::make_pair(transposed(g, node.loc, *input, {0, 2, 3, 1}), *filter);
}

std::optional<SmallVector<int64_t>>
windowInts(GraphImporter &g, const Node &node, StringRef name, bool oneD) {
  std::optional<SmallVector<int64_t>> v = g.intsAttr(node, name);
  return oneD ? lifted(v, name == "pads" ? 0 : 1) : v;
}

void splitPadding(StringRef autoPad, int64_t total, int d,
                  SmallVectorImpl<int64_t> &pads) {
  const int64_t small = total / 2, large = total - small;
  pads[d] = autoPad == "SAME_UPPER" ? small : large;
  pads[d + 2] = autoPad == "SAME_UPPER" ? large : small;
}

LogicalResult applyAutoPad(GraphImporter &g, const Node &node,
                           RankedTensorType x, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> extent,
                           SmallVectorImpl<int64_t> &pads) {
  const std::string autoPad = g.stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int d = 0; d < 2; ++d) {
      const int64_t in = x.getDimSize(2 + d);
      const int64_t out = (in + strides[d] - 1) / strides[d];
      splitPadding(
          autoPad,
          std::max<int64_t>(0, (out - 1) * strides[d] + extent[d] - in), d,
          pads);
    }
  } else if (autoPad == "VALID") {
    pads.assign({0, 0, 0, 0});
  } else if (autoPad != "NOTSET") {
    g.error(node) << "auto_pad '" << autoPad << "' is not an ONNX value";
    return failure();
  }
  return success();
}

LogicalResult defineConvResult(GraphImporter &g, const Node &node, Value y,
                               bool oneD) {
  auto type = cast<RankedTensorType>(y.getType());
  const int64_t f = type.getDimSize(3);
  if (node.has(2)) {
    RankedTensorType b = g.typeOf(node, 2);
    if (!b || b.getRank() != 1 || b.getDimSize(0) != f ||
        b.getElementType() != type.getElementType()) {
      g.error(node) << "bias " << b << " is not one value per output channel";
      return failure();
    }
    FailureOr<Value> bias = g.operand(node, 2);
    if (failed(bias))
      return failure();
    // NHWC: the bias broadcasts along the last axis as it is.
    y = fuse::AddOp::create(g.builder, node.loc, type, y, *bias);
  }
  y = transposed(g, node.loc, y, {0, 3, 1, 2});
  if (oneD)
    y = fuse::ReshapeOp::create(
        g.builder, node.loc,
        RankedTensorType::get({type.getDimSize(0), f, type.getDimSize(2)},
                              type.getElementType()),
        y);
  g.define(node, 0, y);
  return success();
}

namespace {

LogicalResult conv(GraphImporter &g, const Node &node) {
  // A 1-D convolution (NCL input, OIK filter) runs as a 2-D one over rows of
  // height 1.
  FailureOr<ConvOperandTypes> types =
      convOperandTypes(g, node, "convolutions", "OIHW");
  if (failed(types))
    return failure();
  RankedTensorType x = types->x, w = types->w;
  const bool oneD = types->oneD;
  auto ints = [&](StringRef name) { return windowInts(g, node, name, oneD); };
  const int64_t groups = g.intAttr(node, "group", 1);
  const int64_t c = x.getDimSize(1), f = w.getDimSize(0);
  const int64_t kh = w.getDimSize(2), kw = w.getDimSize(3);
  if (groups < 1 || c % groups != 0 || f % groups != 0 ||
      w.getDimSize(1) != c / groups) {
    g.error(node) << "filter " << w << " does not fit input " << x << " in "
                  << groups << " groups";
    return failure();
  }
  SmallVector<int64_t> strides =
      ints("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations =
      ints("dilations").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      ints("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (std::optional<SmallVector<int64_t>> shape = ints("kernel_shape");
      shape && (*shape != SmallVector<int64_t>{kh, kw})) {
    g.error(node) << "kernel_shape does not match filter " << w;
    return failure();
  }
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      !inRange(strides, 1) || !inRange(dilations, 1) || !inRange(pads, 0)) {
    g.error(node) << "strides, dilations and pads must have 2, 2 and 4 "
                     "values, positive (pads non-negative) and at most 2^20";
    return failure();
  }
  const int64_t extent[2] = {dilations[0] * (kh - 1) + 1,
                             dilations[1] * (kw - 1) + 1};
  if (failed(applyAutoPad(g, node, x, strides, extent, pads)))
    return failure();
  SmallVector<int64_t> out(2);
  for (int d = 0; d < 2; ++d) {
    const int64_t k = d ? kw : kh;
    const int64_t span = x.getDimSize(2 + d) + pads[d] + pads[d + 2] -
                         dilations[d] * (k - 1) - 1;
    if (span < 0 || strides[d] < 1 || dilations[d] < 1) {
      g.error(node) << "the filter does not fit the padded input";
      return failure();
    }
    out[d] = span / strides[d] + 1;
  }
  FailureOr<std::pair<Value, Value>> operands = convOperands(g, node, oneD);
  if (failed(operands))
    return failure();
  Value nhwc = operands->first;
  Value ohwi = transposed(g, node.loc, operands->second, {0, 2, 3, 1});
  auto resultType = RankedTensorType::get({x.getDimSize(0), out[0], out[1], f},
                                          x.getElementType());
  // fuse's padding is [top, bottom, left, right]; ONNX's is
  // [top, left, bottom, right].
  Value y = fuse::Conv2DOp::create(
      g.builder, node.loc, resultType, nhwc, ohwi,
      g.builder.getDenseI64ArrayAttr(strides),
      g.builder.getDenseI64ArrayAttr({pads[0], pads[2], pads[1], pads[3]}),
      g.builder.getDenseI64ArrayAttr(dilations),
      g.builder.getI64IntegerAttr(groups));
  return defineConvResult(g, node, y, oneD);
}

LogicalResult batchNorm(GraphImporter &g, const Node &node) {
  RankedTensorType x = g.typeOf(node, 0);
  for (int i = 1; i < node.proto.output_size(); ++i)
    if (!node.proto.output(i).empty()) {
      g.unsupported(node) << "training outputs (running statistics) are not "
                             "supported";
      return failure();
    }
  if (g.intAttr(node, "training_mode", 0) != 0) {
    g.unsupported(node) << "training_mode is not supported";
    return failure();
  }
  if (!x || x.getRank() < 2 || !isa<FloatType>(x.getElementType())) {
    g.error(node) << "expects a float input of rank 2 or more";
    return failure();
  }
  const int64_t channels = x.getDimSize(1);
  const HostTensor *params[4];
  for (int i = 0; i < 4; ++i) {
    params[i] = g.known(node, i + 1);
    if (!params[i] || params[i]->size() != channels) {
      g.unsupported(node) << "scale, bias, mean and variance must be known "
                             "tensors of "
                          << channels << " values";
      return failure();
    }
  }
  const double epsilon = g.floatAttr(node, "epsilon", 1e-5f);
  // y = x * s + t with s = scale / sqrt(var + eps), t = bias - mean * s,
  // per channel, in f64 and rounded once to the input's type.
  HostTensor s, t;
  s.elementType = t.elementType = x.getElementType();
  s.shape.assign(x.getRank() - 1, 1);
  s.shape[0] = channels;
  t.shape = s.shape;
  for (int64_t ch = 0; ch < channels; ++ch) {
    const double scale =
        params[0]->data[ch] / std::sqrt(params[3]->data[ch] + epsilon);
    s.data.push_back(scale);
    t.data.push_back(params[1]->data[ch] - params[2]->data[ch] * scale);
  }
  FailureOr<Value> input = g.operand(node, 0);
  if (failed(input))
    return failure();
  Value scaled = fuse::MulOp::create(g.builder, node.loc, x, *input,
                                     g.materialize(s, node.loc));
  g.define(node, 0,
           fuse::AddOp::create(g.builder, node.loc, x, scaled,
                               g.materialize(t, node.loc)));
  return success();
}

LogicalResult globalAveragePool(GraphImporter &g, const Node &node) {
  RankedTensorType x = g.typeOf(node, 0);
  if (!x || x.getRank() < 3 || !isa<FloatType>(x.getElementType())) {
    g.error(node) << "expects a float input of rank 3 or more";
    return failure();
  }
  SmallVector<int64_t> axes, shape(x.getShape());
  for (int64_t d = 2; d < x.getRank(); ++d) {
    axes.push_back(d);
    shape[d] = 1;
  }
  FailureOr<Value> input = g.operand(node, 0);
  if (failed(input))
    return failure();
  g.define(node, 0,
           fuse::ReduceMeanOp::create(
               g.builder, node.loc,
               RankedTensorType::get(shape, x.getElementType()), *input,
               g.builder.getDenseI64ArrayAttr(axes), /*keepdims=*/true));
  return success();
}

/// MaxPool and AveragePool over H and W: the maximum (or the mean) of the
/// kernel's KH x KW strided windows, each a fuse.slice of the padded
/// input, which fusion reads in place in one kernel. Padding adds -inf
/// (max) or zeros (mean); the mean divides by the window size, or with
/// count_include_pad = 0 by how many of its elements are inside the input
/// (a constant computed on the host).
LogicalResult pool(GraphImporter &g, const Node &node, bool max) {
  RankedTensorType x = g.typeOf(node, 0);
  if (!x || x.getRank() != 4 || !isa<FloatType>(x.getElementType())) {
    g.unsupported(node) << "only 2-D pooling of float NCHW inputs is "
                           "supported";
    return failure();
  }
  std::optional<SmallVector<int64_t>> kernel = g.intsAttr(node, "kernel_shape");
  SmallVector<int64_t> strides =
      g.intsAttr(node, "strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      g.intsAttr(node, "pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  SmallVector<int64_t> dilations =
      g.intsAttr(node, "dilations").value_or(SmallVector<int64_t>{1, 1});
  if (!kernel || kernel->size() != 2 || strides.size() != 2 ||
      pads.size() != 4 || dilations.size() != 2 || !inRange(*kernel, 1) ||
      !inRange(strides, 1) || !inRange(pads, 0) || !inRange(dilations, 1)) {
    g.error(node) << "needs a 2-D kernel_shape, strides, pads and dilations, "
                     "positive (pads non-negative) and at most 2^20";
    return failure();
  }
  const bool ceilMode = g.intAttr(node, "ceil_mode", 0) != 0;
  const bool includePad = g.intAttr(node, "count_include_pad", 0) != 0;
  if (node.proto.output_size() > 1) {
    g.unsupported(node) << "the indices output is not supported";
    return failure();
  }
  if (!max && ceilMode && includePad) {
    g.unsupported(node) << "ceil_mode with count_include_pad is not "
                           "supported (which windows count the padding "
                           "past the input differs between frameworks)";
    return failure();
  }
  // The window's extent with its dilation, per axis.
  int64_t extent[2];
  for (int d = 0; d < 2; ++d)
    extent[d] = dilations[d] * ((*kernel)[d] - 1) + 1;
  if (failed(applyAutoPad(g, node, x, strides, extent, pads)))
    return failure();
  // With ceil_mode a last, partial window counts, unless it would start
  // past the input and the leading pad (PyTorch's rule, which its exports
  // follow); the padding grows at the end to hold it.
  SmallVector<int64_t> out(2);
  int64_t extra[2] = {0, 0};
  for (int d = 0; d < 2; ++d) {
    const int64_t in = x.getDimSize(2 + d);
    const int64_t span = in + pads[d] + pads[d + 2] - extent[d];
    if (span < 0) {
      g.error(node) << "the window does not fit the padded input";
      return failure();
    }
    out[d] = span / strides[d] + 1;
    if (ceilMode && span % strides[d] != 0) {
      out[d] += 1;
      if ((out[d] - 1) * strides[d] >= in + pads[d])
        out[d] -= 1;
    }
    extra[d] = std::max<int64_t>(0, (out[d] - 1) * strides[d] + extent[d] -
                                        (span + extent[d]));
  }
  FailureOr<Value> input = g.operand(node, 0);
  if (failed(input))
    return failure();
  const double fill = max ? -std::numeric_limits<double>::infinity() : 0.0;
  Value fillValue = g.scalar(x.getElementType(), fill, node.loc);
  Value padded =
      padAxis(g, node.loc, *input, 2, pads[0], pads[2] + extra[0], fillValue);
  padded =
      padAxis(g, node.loc, padded, 3, pads[1], pads[3] + extra[1], fillValue);
  auto resultType = RankedTensorType::get(
      {x.getDimSize(0), x.getDimSize(1), out[0], out[1]}, x.getElementType());
  Value acc;
  for (int64_t i = 0; i < (*kernel)[0]; ++i)
    for (int64_t j = 0; j < (*kernel)[1]; ++j) {
      Value window = fuse::SliceOp::create(
          g.builder, node.loc, resultType, padded,
          g.builder.getDenseI64ArrayAttr(
              {0, 0, i * dilations[0], j * dilations[1]}),
          g.builder.getDenseI64ArrayAttr(resultType.getShape()),
          g.builder.getDenseI64ArrayAttr({1, 1, strides[0], strides[1]}));
      if (!acc)
        acc = window;
      else if (max)
        acc = fuse::MaxOp::create(g.builder, node.loc, resultType, acc, window);
      else
        acc = fuse::AddOp::create(g.builder, node.loc, resultType, acc, window);
    }
  if (!max && out[0] * out[1] > (int64_t(1) << 26)) {
    g.unsupported(node) << "average pooling over more than 2^26 output "
                           "positions per channel is not supported";
    return failure();
  }
  if (!max) {
    HostTensor count;
    count.elementType = x.getElementType();
    count.shape = {out[0], out[1]};
    // The taps of a window on the input (or, with count_include_pad, on
    // the padded input).
    auto taps = [&](int d, int64_t o) {
      const int64_t low = includePad ? -pads[d] : 0;
      const int64_t high = x.getDimSize(2 + d) + (includePad ? pads[d + 2] : 0);
      int64_t n = 0;
      for (int64_t t = 0; t < (*kernel)[d]; ++t) {
        const int64_t at = o * strides[d] - pads[d] + t * dilations[d];
        n += at >= low && at < high;
      }
      return n;
    };
    for (int64_t r = 0; r < out[0]; ++r)
      for (int64_t c = 0; c < out[1]; ++c)
        count.data.push_back(taps(0, r) * taps(1, c));
    acc = fuse::DivOp::create(g.builder, node.loc, resultType, acc,
                              g.materialize(count, node.loc));
  }
  g.define(node, 0, acc);
  return success();
}

LogicalResult trilu(GraphImporter &g, const Node &node) {
  const HostTensor *x = g.known(node, 0);
  if (!x || x->shape.size() < 2) {
    g.unsupported(node) << "only Trilu of a known matrix (a causal mask) is "
                           "supported";
    return failure();
  }
  int64_t k = 0;
  if (node.has(1)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 1, "k");
    if (failed(given) || given->size() != 1)
      return failure();
    k = given->front();
  }
  const bool upper = g.intAttr(node, "upper", 1) != 0;
  const int64_t rows = x->shape[x->shape.size() - 2], cols = x->shape.back();
  HostTensor out = *x;
  for (int64_t i = 0; i < out.size(); ++i) {
    const int64_t r = (i / cols) % rows, c = i % cols;
    const bool keep = upper ? c - r >= k : c - r <= k;
    if (!keep)
      out.data[i] = 0;
  }
  g.defineHost(node, 0, std::move(out));
  return success();
}

} // namespace

void registerVisionConverters(llvm::StringMap<Converter> &map) {
  map["Conv"] = conv;
  map["BatchNormalization"] = batchNorm;
  map["GlobalAveragePool"] = globalAveragePool;
  map["MaxPool"] = [](GraphImporter &g, const Node &n) {
    return pool(g, n, /*max=*/true);
  };
  map["AveragePool"] = [](GraphImporter &g, const Node &n) {
    return pool(g, n, /*max=*/false);
  };
  map["Trilu"] = trilu;
}

} // namespace opfuse::onnx_import
