//===- PrecisionDemand.cpp - What a group value is rounded to -------------===//

#include "PrecisionDemand.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

namespace {

bool isSixteenBitFloat(Type type) {
  return isa<Float16Type, BFloat16Type>(type);
}

/// The wider demand of two paths (bf16 over f16; null over both).
Type combine(Type a, Type b) {
  if (!a || !b)
    return Type();
  return isa<BFloat16Type>(a) ? a : b;
}

} // namespace

bool isNonNegativeByConstruction(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<ExpOp, SigmoidOp>([](auto) { return true; })
      .Case<AddOp, MulOp, DivOp>([](auto binary) {
        return isNonNegativeByConstruction(binary.getLhs()) &&
               isNonNegativeByConstruction(binary.getRhs());
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, BroadcastToOp, ReshapeOp>(
          [](auto unary) {
            return isNonNegativeByConstruction(unary->getOperand(0));
          })
      .Default([](Operation *) { return false; });
}

Type PrecisionDemand::roundedTo(Value value) {
  auto known = memo.find(value);
  if (known != memo.end())
    return known->second;
  Type demand = compute(value);
  memo[value] = demand;
  return demand;
}

Type PrecisionDemand::compute(Value value) {
  Type element = getElementTypeOrSelf(value);
  if (isSixteenBitFloat(element))
    return element;
  if (!element.isF32() || value.use_empty())
    return Type();
  Type demand;
  bool first = true;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    Type path =
        llvm::TypeSwitch<Operation *, Type>(user)
            .Case([&](CastOp cast) {
              Type to = cast.getType().getElementType();
              return isSixteenBitFloat(to) ? to
                     : to.isF32()          ? roundedTo(cast)
                                           : Type();
            })
            .Case<MulOp, DivOp, BroadcastToOp, ReshapeOp>(
                [&](Operation *op) { return roundedTo(op->getResult(0)); })
            .Case<ReduceSumOp, ReduceMeanOp>([&](Operation *op) {
              return isNonNegativeByConstruction(value)
                         ? roundedTo(op->getResult(0))
                         : Type();
            })
            .Default([](Operation *) { return Type(); });
    if (!path)
      return Type();
    demand = first ? path : combine(demand, path);
    first = false;
  }
  return demand;
}

} // namespace opfuse
