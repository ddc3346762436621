//===- ReductionOps.cpp - Reductions and normalisations -------------------===//
//
// reduce_sum/max/mean, softmax, layer_norm and rms_norm: axis rules, the
// shape of the affine parameters, and FLOP counts.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

namespace {
/// Elements folded away by a reduction: each costs one add or compare.
int64_t reducedAway(Value input, Value result) {
  return getNumElements(input.getType()) - getNumElements(result.getType());
}

/// Checks `axis` against `input` and that an affine parameter (scale or
/// bias), when present, has shape `input.shape[axis:]` and the input's
/// element type; then the result is the input's type.
LogicalResult inferNormResult(std::optional<Location> loc, StringRef opName,
                              Type inputType, int64_t axis,
                              ArrayRef<std::pair<StringRef, Value>> params,
                              SmallVectorImpl<Type> &results) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input || !input.hasStaticShape())
    return emitShapeError(loc, opName,
                          "input must be a statically shaped tensor");
  if (axis >= input.getRank())
    return emitShapeError(loc, opName,
                          "axis " + Twine(axis) +
                              " is out of range for an input of rank " +
                              Twine(input.getRank()));
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  for (auto [name, value] : params) {
    if (!value)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() != normalized)
      return emitShapeError(loc, opName,
                            name + " shape " + formatShape(type.getShape()) +
                                " must equal the normalised input shape " +
                                formatShape(normalized));
    if (type.getElementType() != input.getElementType())
      return emitShapeError(loc, opName,
                            name + " element type must match the input's");
  }
  results.push_back(input);
  return success();
}

/// Rows a normalisation over `[axis, rank)` processes.
int64_t normalizedRows(RankedTensorType type, int64_t axis) {
  int64_t rows = 1;
  for (int64_t dim : type.getShape().take_front(axis))
    rows *= dim;
  return rows;
}
} // namespace

namespace {
/// The splat a reduction of the splat constant `input` folds to: the value
/// itself, or (for a sum) the value times the number of elements each result
/// element reduces. Null when `input` is no splat or nothing is reduced.
Attribute foldSplatReduction(Attribute input, Type resultType, bool sum) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(input);
  auto result = cast<RankedTensorType>(resultType);
  if (!dense || !dense.isSplat() || dense.getNumElements() == 0)
    return {};
  const int64_t count = dense.getNumElements() / result.getNumElements();
  Type element = result.getElementType();
  if (!sum)
    return DenseElementsAttr::get(result, dense.getSplatValue<Attribute>());
  if (auto floatType = dyn_cast<FloatType>(element)) {
    // The reference sums in f64 and rounds once.
    APFloat total(dense.getSplatValue<APFloat>().convertToDouble() *
                  static_cast<double>(count));
    bool lostInfo = false;
    total.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lostInfo);
    return DenseElementsAttr::get(result, total);
  }
  if (isa<IntegerType>(element) && !element.isInteger(1)) {
    APInt value = dense.getSplatValue<APInt>();
    return DenseElementsAttr::get(
        result, value * APInt(value.getBitWidth(), count, /*isSigned=*/true,
                              /*implicitTrunc=*/true));
  }
  return {};
}
} // namespace

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldSplatReduction(adaptor.getInput(), getType(), /*sum=*/true);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldSplatReduction(adaptor.getInput(), getType(), /*sum=*/false);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor adaptor) {
  return foldSplatReduction(adaptor.getInput(), getType(), /*sum=*/false);
}

int64_t ReduceSumOp::getFlops() { return reducedAway(getInput(), getResult()); }
int64_t ReduceMaxOp::getFlops() { return reducedAway(getInput(), getResult()); }
int64_t ReduceMeanOp::getFlops() {
  return reducedAway(getInput(), getResult()) + getNumElements(getType());
}

LogicalResult SoftmaxOp::verify() {
  if (static_cast<int64_t>(getAxis()) >= getType().getRank())
    return emitOpError("axis ")
           << getAxis() << " is out of range for an input of rank "
           << getType().getRank();
  return success();
}

int64_t SoftmaxOp::getFlops() { return 5 * getNumElements(getType()); }

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferNormResult(
      loc, getOperationName(), adaptor.getInput().getType(), adaptor.getAxis(),
      {{"scale", adaptor.getScale()}, {"bias", adaptor.getBias()}}, results);
}

int64_t LayerNormOp::getFlops() {
  const int64_t perElement = 5 + (getScale() ? 1 : 0) + (getBias() ? 1 : 0);
  return perElement * getNumElements(getType()) +
         4 * normalizedRows(getType(), getAxis());
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferNormResult(loc, getOperationName(), adaptor.getInput().getType(),
                         adaptor.getAxis(), {{"scale", adaptor.getScale()}},
                         results);
}

int64_t RmsNormOp::getFlops() {
  const int64_t perElement = 3 + (getScale() ? 1 : 0);
  return perElement * getNumElements(getType()) +
         3 * normalizedRows(getType(), getAxis());
}

} // namespace opfuse::fuse
