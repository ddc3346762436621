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

bool throughF32Contraction(func::FuncOp func, unsigned index) {
  SmallVector<Value> stack = {func.front().getTerminator()->getOperand(index)};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *producer = value.getDefiningOp();
    if (!producer)
      continue;
    if (isa<fuse::MatmulOp, fuse::Conv2DOp>(producer) &&
        cast<ShapedType>(producer->getOperand(0).getType())
            .getElementType()
            .isF32())
      return true;
    llvm::append_range(stack, producer->getOperands());
  }
  return false;
}

SmallVector<ScaleSource> scaleSources(func::FuncOp func, unsigned index,
                                      bool roundedInputs) {
  Value result = func.front().getTerminator()->getOperand(index);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return {};
  auto sameShape = [&](Value value) {
    auto other = dyn_cast<RankedTensorType>(value.getType());
    return other && other.getShape() == type.getShape() &&
           isa<FloatType>(other.getElementType());
  };
  SmallVector<ScaleSource> sources;
  llvm::SetVector<Value> addends;
  SmallVector<Value> stack = {result};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *producer = value.getDefiningOp();
    if (!producer)
      continue;
    if (isa<fuse::MatmulOp, fuse::Conv2DOp>(producer)) {
      // Computed operands were rounded differently on the way. A matmul of
      // the model's inputs is exact up to its accumulation order, which
      // only f32 bounds can see: u_f32 times |lhs| @ |rhs| (a 200-term f32
      // dot product is off by 1.4e-5 of max(|ref|, 1) against f64 sums).
      bool f32 = cast<ShapedType>(producer->getOperand(0).getType())
                     .getElementType()
                     .isF32();
      if (roundedInputs || f32 ||
          llvm::any_of(producer->getOperands(),
                       [](Value operand) { return operand.getDefiningOp(); }))
        sources.push_back({value, /*absoluteProducts=*/true});
      continue;
    }
    if (!fuse::isElementwise(producer))
      continue;
    const bool sums = isa<fuse::AddOp, fuse::SubOp>(producer);
    for (Value operand : producer->getOperands()) {
      if (!sameShape(operand))
        continue;
      if (sums)
        addends.insert(operand);
      stack.push_back(operand);
    }
  }
  for (Value addend : addends)
    sources.push_back({addend, false});
  return sources;
}

} // namespace opfuse
