//===- GroupedConvWindows.cpp - Grouped convolutions as strided windows ---===//
//
// A depthwise convolution does KH x KW multiply-adds per output element: far
// too few for a GEMM kernel, which would pad each group's few channels to a
// whole tile (wider groups run there, one GEMM per group). Written as the
// sum of its taps' strided windows of the padded input, as pooling is,
// fusion makes one memory-bound loop kernel of it that reads each window in
// place (the pad a concat with zeros, the windows slices), together with
// its bias and activation. A group of several input channels adds one term
// per channel, the window gathered onto the output channels that read it.
//
//===----------------------------------------------------------------------===//

#include "GroupedConvWindows.h"

#include "opfuse/Dialect/Fuse/IR/Padding.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace opfuse::fuse {

namespace {

struct ConvShape {
  int64_t n, h, w, c, f, kh, kw, groups;
  int64_t perGroupIn() const { return c / groups; }
  int64_t perGroupOut() const { return f / groups; }
};

ConvShape shapeOf(Conv2DOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto filter = cast<RankedTensorType>(op.getFilter().getType());
  return {in.getDimSize(0),     in.getDimSize(1),     in.getDimSize(2),
          in.getDimSize(3),     filter.getDimSize(0), filter.getDimSize(1),
          filter.getDimSize(2), op.getGroups()};
}

/// `x` padded with zeros along `axis`.
Value padWithZeros(OpBuilder &b, Location loc, Value x, int64_t axis,
                   int64_t before, int64_t after) {
  return buildPadAlong(
      b, loc, x, axis, before, after, [&](RankedTensorType type) -> Value {
        return ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(type,
                                   b.getFloatAttr(type.getElementType(), 0.0)));
      });
}

/// The filter's values when it is a constant the compiler can read (the
/// ONNX importer's weights are): then each tap's weights are a constant
/// vector of their own, read whole by the kernel's vector lanes, where a
/// slice of the filter is strided along the output channels.
std::optional<SmallVector<APFloat>> constantFilter(Value filter) {
  auto constant = filter.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto type = cast<RankedTensorType>(filter.getType());
  DenseElementsAttr dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (auto resource =
          dyn_cast<DenseResourceElementsAttr>(constant.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, blob->getData(), splat))
      return std::nullopt;
    dense = DenseElementsAttr::getFromRawBuffer(type, blob->getData());
  }
  if (!dense || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  auto values = dense.getValues<APFloat>();
  return SmallVector<APFloat>(values.begin(), values.end());
}

Value widened(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType().isF32())
    return v;
  return CastOp::create(b, loc, type.clone(b.getF32Type()), v);
}

} // namespace

Value buildConvWindows(OpBuilder &b, Conv2DOp op) {
  Location loc = op.getLoc();
  const ConvShape s = shapeOf(op);
  auto resultType = cast<RankedTensorType>(op.getType());
  const int64_t oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
  ArrayRef<int64_t> strides = op.getStrides(), dilation = op.getDilation();
  ArrayRef<int64_t> padding = op.getPadding(); // [top, bottom, left, right]
  Value padded = padWithZeros(b, loc, op.getInput(), 1, padding[0], padding[1]);
  padded = padWithZeros(b, loc, padded, 2, padding[2], padding[3]);
  auto elementType = resultType.getElementType();
  auto windowType = RankedTensorType::get({s.n, oh, ow, s.c}, elementType);
  auto weightType = RankedTensorType::get({s.f}, elementType);
  auto f32Result = resultType.clone(b.getF32Type());
  // Output channel o reads input channel (o / perGroupOut) * perGroupIn + ci.
  auto indexType = RankedTensorType::get({s.f}, b.getI32Type());
  const bool channelwise = s.perGroupIn() == 1 && s.perGroupOut() == 1;
  std::optional<SmallVector<APFloat>> filterValues =
      constantFilter(op.getFilter());
  Value acc;
  for (int64_t i = 0; i < s.kh; ++i)
    for (int64_t j = 0; j < s.kw; ++j) {
      // A 1x1 convolution without stride or padding reads the input as it
      // is.
      Value window =
          windowType == padded.getType()
              ? padded
              : SliceOp::create(
                    b, loc, windowType, padded,
                    b.getDenseI64ArrayAttr(
                        {0, i * dilation[0], j * dilation[1], 0}),
                    b.getDenseI64ArrayAttr(windowType.getShape()),
                    b.getDenseI64ArrayAttr({1, strides[0], strides[1], 1}))
                    .getResult();
      window = widened(b, loc, window);
      for (int64_t ci = 0; ci < s.perGroupIn(); ++ci) {
        Value source = window;
        if (!channelwise) {
          SmallVector<int32_t> channels;
          for (int64_t o = 0; o < s.f; ++o)
            channels.push_back(static_cast<int32_t>(
                o / s.perGroupOut() * s.perGroupIn() + ci));
          Value indices = ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(indexType, ArrayRef<int32_t>(channels)));
          source = GatherOp::create(b, loc, f32Result, window, indices, 3);
        }
        // filter[:, i, j, ci], one weight per output channel, broadcast
        // along the last (channel) axis.
        Value weight;
        if (filterValues) {
          SmallVector<APFloat> tap;
          for (int64_t o = 0; o < s.f; ++o)
            tap.push_back(
                (*filterValues)[((o * s.kh + i) * s.kw + j) * s.perGroupIn() +
                                ci]);
          weight = ConstantOp::create(b, loc, weightType,
                                      DenseElementsAttr::get(weightType, tap));
        } else {
          weight = SliceOp::create(
              b, loc, RankedTensorType::get({s.f, 1, 1, 1}, elementType),
              op.getFilter(), b.getDenseI64ArrayAttr({0, i, j, ci}),
              b.getDenseI64ArrayAttr({s.f, 1, 1, 1}),
              b.getDenseI64ArrayAttr({1, 1, 1, 1}));
          weight = ReshapeOp::create(b, loc, weightType, weight);
        }
        Value term =
            MulOp::create(b, loc, f32Result, source, widened(b, loc, weight));
        if (!acc) {
          acc = term;
          continue;
        }
        auto sum = AddOp::create(b, loc, f32Result, acc, term);
        // The convolution's own sum of products: its kernel may use FMAs.
        getFuseDialect(b.getContext())
            .getContractAttrHelper()
            .setAttr(sum, b.getUnitAttr());
        acc = sum;
      }
    }
  if (elementType.isF32())
    return acc;
  return CastOp::create(b, loc, resultType, acc);
}

} // namespace opfuse::fuse
