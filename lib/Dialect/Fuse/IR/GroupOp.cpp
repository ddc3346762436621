//===- GroupOp.cpp - fuse.group -------------------------------------------===//
//
// The region that becomes one kernel: its block arguments mirror its inputs,
// its yield mirrors its results, and its cost is that of a fused kernel.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace opfuse::fuse {

LogicalResult GroupOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the group has "
           << getInputs().size() << " inputs";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getInputs()))) {
    auto [argType, input] = pair;
    if (argType != input.getType())
      return emitOpError("body argument #")
             << index << " has type " << argType << " but input #" << index
             << " has type " << input.getType();
  }
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with fuse.yield");
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the group has "
           << getNumResults() << " results";
  for (auto [index, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes()))) {
    auto [yielded, result] = pair;
    if (yielded != result)
      return yield.emitOpError("value #")
             << index << " has type " << yielded << " but group result #"
             << index << " has type " << result;
  }
  return success();
}

int64_t GroupOp::getFlops() {
  int64_t flops = 0;
  for (Operation &op : getBody().front())
    if (auto cost = dyn_cast<CostInterface>(op))
      flops += cost.getFlops();
  return flops;
}

// An input the kernel only slices, or gathers rows of, is read where those
// ops read it: an embedding table's gathered rows, a QKV projection's
// third. Counting the whole input overstated a gather of 512 rows of a
// 32000-row table 33 times.
int64_t GroupOp::getBytesRead() {
  int64_t bytes = 0;
  for (BlockArgument argument : getBody().front().getArguments()) {
    const int64_t whole = getByteSize(argument.getType());
    int64_t partial = 0;
    bool onlyParts = !argument.use_empty();
    for (OpOperand &use : argument.getUses()) {
      Operation *user = use.getOwner();
      if (auto slice = dyn_cast<SliceOp>(user))
        partial += getByteSize(slice.getType());
      else if (auto gather = dyn_cast<GatherOp>(user);
               gather && use.getOperandNumber() == 0)
        partial += getByteSize(gather.getType());
      else
        onlyParts = false;
    }
    bytes += onlyParts ? std::min(whole, partial) : whole;
  }
  return bytes;
}

GroupOp outlineIntoGroup(ArrayRef<Operation *> unordered) {
  SmallVector<Operation *> ops(unordered.begin(), unordered.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  auto inside = [&](Operation *op) { return members.contains(op); };

  llvm::SetVector<Value> inputs, outputs;
  llvm::SetVector<Operation *> splats;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inside(def))
        continue;
      // A GEMM reads its operands from memory, so a splat operand of a
      // matmul or conv2d stays a buffer; elsewhere splats are folded in.
      if (isSplatConstant(def) && !isContraction(op))
        splats.insert(def);
      else
        inputs.insert(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *u) { return !inside(u); }))
        outputs.insert(result);
  }
  if (outputs.empty()) {
    // Nothing outside uses them: the ops are pure and dead.
    for (Operation *op : llvm::reverse(ops))
      op->erase();
    return nullptr;
  }

  OpBuilder builder(ops.back()->getContext());
  builder.setInsertionPointAfter(ops.back());
  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    resultTypes.push_back(output.getType());
  Location loc = ops.back()->getLoc();
  auto group = GroupOp::create(builder, loc, resultTypes, inputs.getArrayRef());
  Block *body = new Block();
  group.getBody().push_back(body);
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  OpBuilder inner = OpBuilder::atBlockBegin(body);
  for (Operation *splat : splats)
    inner.clone(*splat, mapping);
  for (Operation *op : ops)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(inner, loc, yielded);

  for (auto [index, output] : llvm::enumerate(outputs)) {
    Value value = output;
    value.replaceUsesWithIf(group.getResult(index), [&](OpOperand &use) {
      return !inside(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return group;
}

} // namespace opfuse::fuse
