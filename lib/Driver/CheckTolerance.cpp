//===- CheckTolerance.cpp - What --check compares outputs against ---------===//
//
// Both walks go backwards from a returned value through the ops that
// produce it; the cancellation walk stays on values of the output's shape,
// whose element i feeds output element i.
//
//===----------------------------------------------------------------------===//

#include "CheckTolerance.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace opfuse {

Type computedPrecision(func::FuncOp func, unsigned index) {
  Value result = func.front().getTerminator()->getOperand(index);
  auto rank = [](Type type) {
    if (type.isBF16())
      return 3;
    if (type.isF16())
      return 2;
    return type.isF32() ? 1 : 0;
  };
  Type narrowest = cast<ShapedType>(result.getType()).getElementType();
  SmallVector<Value> stack = {result};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *producer = value.getDefiningOp();
    if (!producer)
      continue;
    if (auto shaped = dyn_cast<ShapedType>(value.getType()))
      if (rank(shaped.getElementType()) > rank(narrowest))
        narrowest = shaped.getElementType();
    llvm::append_range(stack, producer->getOperands());
  }
  return narrowest;
}

SmallVector<Value> cancellationOperands(func::FuncOp func, unsigned index) {
  Value result = func.front().getTerminator()->getOperand(index);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return {};
  auto sameShape = [&](Value value) {
    auto other = dyn_cast<RankedTensorType>(value.getType());
    return other && other.getShape() == type.getShape() &&
           isa<FloatType>(other.getElementType());
  };
  llvm::SetVector<Value> operands;
  SmallVector<Value> stack = {result};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *producer = value.getDefiningOp();
    if (!producer || !fuse::isElementwise(producer))
      continue;
    const bool cancels = isa<fuse::AddOp, fuse::SubOp>(producer);
    for (Value operand : producer->getOperands()) {
      if (!sameShape(operand))
        continue;
      if (cancels)
        operands.insert(operand);
      stack.push_back(operand);
    }
  }
  return operands.takeVector();
}

} // namespace opfuse
