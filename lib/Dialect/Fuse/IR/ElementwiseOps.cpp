//===- ElementwiseOps.cpp - Elementwise fuse ops --------------------------===//
//
// Shape rules, folds and costs of the unary, binary, compare, select and cast
// ops. Unary ops get their types from ODS (AllTypesMatch) and their FLOPs
// from the per-element count in FuseOps.td.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace opfuse::fuse {

namespace {
/// True when `attr` is a splat equal to `value` (integer or float).
bool isSplatOf(Attribute attr, int64_t value) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type elementType = dense.getElementType();
  if (isa<FloatType>(elementType))
    return dense.getSplatValue<APFloat>().convertToDouble() ==
           static_cast<double>(value);
  if (elementType.isInteger(1))
    return false;
  if (isa<IntegerType>(elementType))
    return dense.getSplatValue<APInt>().getSExtValue() == value;
  return false;
}

/// `operand` when the op's result has exactly its type (no broadcast grows
/// it) and `identity` holds; the shared shape of x+0, x*1, x-0, x/1.
OpFoldResult foldToOperand(Value operand, Type resultType, bool identity) {
  if (identity && operand.getType() == resultType)
    return operand;
  return {};
}
} // namespace

//===----------------------------------------------------------------------===//
// gelu, cast
//===----------------------------------------------------------------------===//

int64_t GeluOp::getFlops() {
  const int64_t perElement =
      getApproximate() == GeluApproximation::tanh ? 9 : 5;
  return perElement * getNumElements(getType());
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError("result shape ")
           << formatShape(getType().getShape()) << " differs from input shape "
           << formatShape(getInput().getType().getShape())
           << "; a cast changes only the element type";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

int64_t CastOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// Binary folds
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldToOperand(getLhs(), getType(), isSplatOf(adaptor.getRhs(), 0)))
    return r;
  return foldToOperand(getRhs(), getType(), isSplatOf(adaptor.getLhs(), 0));
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldToOperand(getLhs(), getType(), isSplatOf(adaptor.getRhs(), 0));
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldToOperand(getLhs(), getType(), isSplatOf(adaptor.getRhs(), 1)))
    return r;
  return foldToOperand(getRhs(), getType(), isSplatOf(adaptor.getLhs(), 1));
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldToOperand(getLhs(), getType(), isSplatOf(adaptor.getRhs(), 1));
}

//===----------------------------------------------------------------------===//
// compare, select
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferBroadcastResult(loc, getOperationName(), adaptor.getOperands(),
                              {"lhs", "rhs"}, IntegerType::get(context, 1),
                              results);
}

int64_t CompareOp::getFlops() { return getNumElements(getType()); }

LogicalResult SelectOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  // The condition is i1 by its type constraint; only the two choices must
  // agree in element type, so the shared rule sees those two first.
  SmallVector<Type> chosen;
  if (failed(inferBroadcastResult(
          loc, getOperationName(),
          ValueRange{adaptor.getOnTrue(), adaptor.getOnFalse()},
          {"on_true", "on_false"}, std::nullopt, chosen)))
    return failure();
  auto condition = dyn_cast<RankedTensorType>(adaptor.getCondition().getType());
  auto value = cast<RankedTensorType>(chosen.front());
  if (!condition || !condition.hasStaticShape())
    return emitShapeError(loc, getOperationName(),
                          "condition must be a statically shaped tensor");
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(
      loc, getOperationName(), {condition.getShape(), value.getShape()},
      {"condition", "on_true/on_false"});
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, value.getElementType()));
  return success();
}

int64_t SelectOp::getFlops() { return 0; }

} // namespace opfuse::fuse
