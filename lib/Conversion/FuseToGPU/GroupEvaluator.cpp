//===- GroupEvaluator.cpp - A group body's ops on scalars -----------------===//

#include "GroupEvaluator.h"

#include "KernelBuilder.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

FailureOr<GroupEvaluator::Lanes> GroupEvaluator::evaluate(Value value,
                                                          int context) {
  const Key key{value, keyContext(value, context)};
  auto known = memo.find(key);
  if (known != memo.end())
    return known->second;

  FailureOr<std::optional<Lanes>> provided = provide(value, context);
  if (failed(provided))
    return failure();
  Lanes lanes;
  if (*provided) {
    lanes = roundToDeclared(value, std::move(**provided));
  } else if (auto constant = value.getDefiningOp<ConstantOp>()) {
    lanes.assign(width, splatScalar(b, constant));
  } else {
    Operation *op = value.getDefiningOp();
    if (!op)
      return emitError(value.getLoc(),
                       "internal error: a kernel input has no value");
    const int inner = operandContext(op, context);
    SmallVector<Lanes> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Lanes> operandLanes = evaluate(operand, inner);
      if (failed(operandLanes))
        return failure();
      operands.push_back(std::move(*operandLanes));
    }
    const Type roundedTo = demand.roundedTo(value);
    for (int64_t lane = 0; lane < width; ++lane) {
      SmallVector<Value> scalars;
      for (const Lanes &operand : operands)
        scalars.push_back(operand[lane]);
      FailureOr<Value> scalar = emitScalarOp(b, op, scalars, roundedTo);
      if (failed(scalar))
        return failure();
      lanes.push_back(*scalar);
    }
    lanes = roundToDeclared(value, std::move(lanes));
  }
  memo[key] = lanes;
  return lanes;
}

GroupEvaluator::Lanes GroupEvaluator::roundToDeclared(Value value,
                                                      Lanes lanes) {
  if (!strict)
    return lanes;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  Type element = type ? type.getElementType() : value.getType();
  if (!isa<BFloat16Type, Float16Type>(element))
    return lanes;
  for (Value &lane : lanes) {
    if (!lane.getType().isF32())
      continue;
    // Widened from the type (a load): already exact.
    if (auto widened = lane.getDefiningOp<arith::ExtFOp>())
      if (widened.getIn().getType() == element)
        continue;
    Location loc = value.getLoc();
    Value narrow = arith::TruncFOp::create(b, loc, element, lane);
    lane = arith::ExtFOp::create(b, loc, lane.getType(), narrow);
  }
  return lanes;
}

} // namespace opfuse
