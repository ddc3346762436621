//===- CheckTolerance.cpp - What --check compares outputs against ---------===//
//
// Both walks go backwards from a returned value through the ops that
// produce it. The error scales are built by ErrorScale.cpp and interpreted
// here on a decomposed copy of the model.
//
//===----------------------------------------------------------------------===//

#include "CheckTolerance.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/Transforms/Passes.h"
#include "opfuse/Driver/Driver.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>

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

int precisionRank(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isBF16())
    return 3;
  if (type.isF16())
    return 2;
  return type.isF32() ? 1 : 0;
}

Type computedPrecision(func::FuncOp func, unsigned index) {
  Value result = returned(func, index);
  Type narrowest = cast<ShapedType>(result.getType()).getElementType();
  walkProducers(result, [&](Operation *producer, SmallVectorImpl<Value> &next) {
    for (Type type : producer->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(type))
        if (precisionRank(shaped.getElementType()) > precisionRank(narrowest))
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

double unitInLastPlace(DType dtype, double x) {
  const int mantissa = dtype == DType::BF16 ? 7 : 10;
  const int minExponent = dtype == DType::BF16 ? -126 : -14;
  int exponent = minExponent;
  if (x > 0 && std::isfinite(x))
    exponent = std::max(std::ilogb(x), minExponent);
  return std::ldexp(1.0, exponent - mantissa);
}

Tolerance toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return {1e-5, 1e-5};
  case DType::F16:
    return {8e-3, 1e-3};
  case DType::BF16:
    return {6.25e-2, 1e-2};
  default:
    return {0, 0};
  }
}

FailureOr<SmallVector<OutputErrorScale>>
computeErrorScales(func::FuncOp func, ArrayRef<reference::Tensor> arguments,
                   const reference::Options &run) {
  // Composites as their primitives: a softmax's sensitivity is that of its
  // exp, sum and division.
  auto module = func->getParentOfType<ModuleOp>();
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager decompose(func.getContext());
  decompose.addNestedPass<func::FuncOp>(fuse::createFuseDecompose());
  if (failed(applyMlirCommandLineOptions(decompose)) ||
      failed(decompose.run(*copy)))
    return failure();
  auto probe = copy->lookupSymbol<func::FuncOp>(func.getSymName());
  Operation *terminator = probe.front().getTerminator();
  const unsigned outputs = terminator->getNumOperands();
  SmallVector<ErrorScaleValues> built = buildErrorScales(probe);
  // Where each output's E and T land among the probe's results.
  SmallVector<Value> returned;
  SmallVector<std::pair<int, int>> slot(outputs, {-1, -1});
  auto place = [&](Value value) {
    if (!value)
      return -1;
    returned.push_back(value);
    return static_cast<int>(returned.size() - 1);
  };
  for (auto [index, values] : llvm::enumerate(built))
    slot[index] = {place(values.scale), place(values.tie)};
  SmallVector<OutputErrorScale> result(outputs);
  if (returned.empty())
    return result;
  OpBuilder builder(terminator);
  func::ReturnOp::create(builder, terminator->getLoc(), returned);
  terminator->erase();
  probe.setFunctionType(builder.getFunctionType(
      probe.getArgumentTypes(), ValueRange(returned).getTypes()));
  reference::Options exact = run;
  exact.f64Accumulation = true;
  exact.kernelPrecision = false;
  FailureOr<SmallVector<reference::Tensor>> values =
      reference::interpret(probe, arguments, exact);
  if (failed(values))
    return failure();
  for (unsigned index = 0; index < outputs; ++index) {
    auto [scale, tie] = slot[index];
    if (scale >= 0)
      result[index].scale = (*values)[scale].data;
    if (tie >= 0)
      result[index].tie = (*values)[tie].data;
  }
  return result;
}

} // namespace opfuse
