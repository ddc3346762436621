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
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace opfuse {

namespace {

/// Visits each op result `root` is computed from once, latest first:
/// `visit(producer)` appends to `next` the operands to go on with.
void walkProducers(
    Value root,
    llvm::function_ref<void(Operation *, SmallVectorImpl<Value> &)> visit) {
  SmallVector<Value> stack = {root};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (Operation *producer = value.getDefiningOp())
      visit(producer, stack);
  }
}

bool isF32Contraction(Operation *op) {
  return isa<fuse::MatmulOp, fuse::Conv2DOp>(op) &&
         cast<ShapedType>(op->getOperand(0).getType()).getElementType().isF32();
}

Value returned(func::FuncOp func, unsigned index) {
  return func.front().getTerminator()->getOperand(index);
}

} // namespace

Type computedPrecision(func::FuncOp func, unsigned index) {
  auto rank = [](Type type) {
    if (type.isBF16())
      return 3;
    if (type.isF16())
      return 2;
    return type.isF32() ? 1 : 0;
  };
  Value result = returned(func, index);
  Type narrowest = cast<ShapedType>(result.getType()).getElementType();
  walkProducers(result, [&](Operation *producer, SmallVectorImpl<Value> &next) {
    for (Type type : producer->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(type))
        if (rank(shaped.getElementType()) > rank(narrowest))
          narrowest = shaped.getElementType();
    llvm::append_range(next, producer->getOperands());
  });
  return narrowest;
}

bool throughF32Contraction(func::FuncOp func, unsigned index) {
  bool found = false;
  walkProducers(returned(func, index),
                [&](Operation *producer, SmallVectorImpl<Value> &next) {
                  found |= isF32Contraction(producer);
                  if (!found)
                    llvm::append_range(next, producer->getOperands());
                });
  return found;
}

SmallVector<ScaleSource> scaleSources(func::FuncOp func, unsigned index,
                                      bool roundedInputs) {
  Value result = returned(func, index);
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
  walkProducers(result, [&](Operation *producer, SmallVectorImpl<Value> &next) {
    if (isa<fuse::MatmulOp, fuse::Conv2DOp>(producer)) {
      // Computed operands were rounded differently on the way. A matmul of
      // the model's inputs is exact up to its accumulation order, which
      // only f32 bounds can see: u_f32 times |lhs| @ |rhs| (a 200-term f32
      // dot product is off by 1.4e-5 of max(|ref|, 1) against f64 sums).
      if (roundedInputs || isF32Contraction(producer) ||
          llvm::any_of(producer->getOperands(),
                       [](Value operand) { return operand.getDefiningOp(); }))
        sources.push_back({producer->getResult(0), /*ofMagnitudes=*/true});
      return;
    }
    if (isa<fuse::ReduceSumOp, fuse::ReduceMeanOp>(producer)) {
      // A column of 16384 f32 values in [-2, 2] sums to about 150 while
      // the magnitudes sum to 16384: an f32 sum is off by ulps of the
      // latter (1.6e-4 of max(|ref|, 1) on the H200, 2026-11-30). Narrower
      // sums accumulate in f32 too, far below their own rounding.
      if (cast<ShapedType>(producer->getOperand(0).getType())
              .getElementType()
              .isF32())
        sources.push_back({producer->getResult(0), /*ofMagnitudes=*/true});
      return;
    }
    if (!fuse::isElementwise(producer))
      return;
    const bool sums = isa<fuse::AddOp, fuse::SubOp>(producer);
    for (Value operand : producer->getOperands()) {
      if (!sameShape(operand))
        continue;
      if (sums)
        addends.insert(operand);
      next.push_back(operand);
    }
  });
  for (Value addend : addends)
    sources.push_back({addend, false});
  return sources;
}

} // namespace opfuse
