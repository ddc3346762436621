//===- BufferGraph.cpp - A function's kernels and buffers for planning ----===//

#include "opfuse/Analysis/BufferGraph.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

namespace {
/// The element count of the outputs `kernel` may write over a same-size
/// input that dies in it, 0 when none: every thread must read each element
/// of such an input before it writes the same element of the output, and
/// no other thread may read it. The loop emitter's kernels (elementwise
/// ops, broadcasts, reshapes) address every full-size value by the linear
/// index, loads first: any same-size pair. A row kernel's thread reads and
/// writes the same positions of its row in every pass: per-element pairs
/// only (a per-row input is read by every thread of the row, while the
/// row's first thread writes).
int64_t inPlaceElements(Operation *kernel) {
  auto group = dyn_cast<GroupOp>(kernel);
  // NCCL's all_reduce runs in place when its send and receive buffers are
  // one (the other collectives change the size).
  if (!group)
    return isElementwise(kernel) || isa<AllReduceOp>(kernel)
               ? getNumElements(kernel->getResult(0).getType())
               : 0;
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  bool loopOnly = true;
  for (Operation &op : body.without_terminator()) {
    ops.push_back(&op);
    loopOnly &= isElementwise(&op) || isa<ReshapeOp, ConstantOp>(op);
  }
  if (loopOnly)
    return group.getNumResults() == 0
               ? 0
               : getNumElements(group.getResult(0).getType());
  std::string why;
  std::optional<RowKernelInfo> rows = analyzeRowKernel(
      ops, llvm::to_vector(body.getTerminator()->getOperands()), why);
  return rows ? rows->shape.rows * rows->shape.rowLength : 0;
}

/// The values a kernel reads: a group's inputs, an op's operands.
ValueRange kernelInputs(Operation *kernel) {
  if (auto group = dyn_cast<GroupOp>(kernel))
    return group.getInputs();
  return kernel->getOperands();
}
} // namespace

FunctionBuffers buildFunctionBuffers(func::FuncOp func, bool planOutputs) {
  FunctionBuffers result;
  KernelGraph &graph = result.graph;
  auto addBuffer = [&](Value value, bool inArena, std::string name) {
    int id = graph.buffers.size();
    graph.buffers.push_back(
        {getByteSize(value.getType()), inArena, std::move(name), false});
    result.bufferOf[value] = id;
    return id;
  };
  for (BlockArgument arg : func.getArguments()) {
    addBuffer(arg, false, "arg" + std::to_string(arg.getArgNumber()));
    result.inputBytes += getByteSize(arg.getType());
  }
  Operation *terminator = func.getBody().front().getTerminator();
  llvm::DenseSet<Value> returned(terminator->getOperands().begin(),
                                 terminator->getOperands().end());
  for (Operation &op : func.getBody().front()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      addBuffer(constant.getResult(), false,
                "const" + std::to_string(graph.buffers.size()));
      // A splat is a scalar inside the kernels that fold it in; it is a
      // buffer only where a kernel reads it from memory (a GEMM operand).
      if (!isSplatConstant(constant) ||
          llvm::any_of(constant->getUsers(), launchesKernel))
        result.constantBytes += getByteSize(constant.getType());
      continue;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      result.bufferOf[reshape.getResult()] =
          result.bufferOf.lookup(reshape.getInput());
      continue;
    }
    if (!launchesKernel(&op))
      continue;
    KernelNode node;
    for (Value input : kernelInputs(&op)) {
      auto it = result.bufferOf.find(input);
      if (it != result.bufferOf.end() &&
          !llvm::is_contained(node.reads, it->second))
        node.reads.push_back(it->second);
    }
    std::string kernelName =
        (func.getSymName() + "_k" + Twine(result.kernels.size())).str();
    for (OpResult value : op.getResults()) {
      std::string name =
          kernelName + ".out" + std::to_string(value.getResultNumber());
      node.writes.push_back(addBuffer(value, true, name));
    }
    if (int64_t elements = inPlaceElements(&op))
      for (OpResult value : op.getResults())
        for (Value input : kernelInputs(&op)) {
          auto it = result.bufferOf.find(input);
          if (it == result.bufferOf.end() ||
              getNumElements(input.getType()) != elements ||
              getNumElements(value.getType()) != elements ||
              getByteSize(input.getType()) != getByteSize(value.getType()))
            continue;
          node.inPlace.push_back({result.bufferOf[value], it->second});
        }
    graph.kernels.push_back(std::move(node));
    result.kernels.push_back(&op);
  }
  // Returned values: the caller's unless planned; reshapes may return a
  // kernel's buffer under another shape.
  llvm::DenseSet<int> seen;
  for (Value value : terminator->getOperands()) {
    int id = result.bufferOf.lookup(value);
    BufferNode &buffer = graph.buffers[id];
    if (!buffer.inArena || !seen.insert(id).second)
      continue;
    buffer.liveToEnd = true;
    if (!planOutputs) {
      buffer.inArena = false;
      result.outputBytes += buffer.bytes;
    }
  }
  return result;
}

void annotateMemoryPlan(func::FuncOp func, const FunctionBuffers &buffers,
                        const MemoryPlan &plan, bool planOutputs) {
  Builder builder(func.getContext());
  fuse::FuseDialect &dialect = fuse::getFuseDialect(func.getContext());
  for (Operation *kernel : buffers.kernels) {
    SmallVector<int64_t> offsets;
    for (Value value : kernel->getResults())
      offsets.push_back(plan.offset[buffers.bufferOf.lookup(value)]);
    dialect.getOffsetsAttrHelper().setAttr(
        kernel, builder.getDenseI64ArrayAttr(offsets));
  }
  dialect.getMemoryAttrHelper().setAttr(
      func,
      fuse::MemoryPlanAttr::get(
          func.getContext(), plan.arenaBytes, plan.lowerBound, plan.naiveBytes,
          plan.inPlaceHits, buffers.inputBytes, buffers.constantBytes,
          buffers.outputBytes, planOutputs, plan.orderName, plan.placement));
}

std::optional<MemorySummary> readMemorySummary(func::FuncOp func) {
  fuse::MemoryPlanAttr stored = fuse::getFuseDialect(func.getContext())
                                    .getMemoryAttrHelper()
                                    .getAttr(func);
  if (!stored)
    return std::nullopt;
  MemorySummary summary;
  summary.arenaBytes = stored.getArena();
  summary.lowerBound = stored.getLowerBound();
  summary.naiveBytes = stored.getNaive();
  summary.inPlaceHits = stored.getInPlace();
  summary.inputBytes = stored.getInputs();
  summary.constantBytes = stored.getConstants();
  summary.outputBytes = stored.getOutputs();
  summary.planOutputs = stored.getPlanOutputs();
  summary.order = stored.getOrder().str();
  summary.placement = stored.getPlacement().str();
  return summary;
}

std::optional<MemoryPlan> readMemoryPlan(func::FuncOp func,
                                         const FunctionBuffers &buffers) {
  std::optional<MemorySummary> summary = readMemorySummary(func);
  if (!summary)
    return std::nullopt;
  const KernelGraph &graph = buffers.graph;
  MemoryPlan plan;
  plan.arenaBytes = summary->arenaBytes;
  plan.lowerBound = summary->lowerBound;
  plan.naiveBytes = summary->naiveBytes;
  plan.inPlaceHits = summary->inPlaceHits;
  plan.orderName = summary->order;
  plan.placement = summary->placement;
  const size_t steps = graph.kernels.size();
  for (size_t k = 0; k < steps; ++k)
    plan.order.push_back(k);
  plan.offset.assign(graph.buffers.size(), -1);
  plan.storage.assign(graph.buffers.size(), -1);
  plan.lifetime.assign(graph.buffers.size(), {-1, -1});
  for (auto [step, kernel] : llvm::enumerate(buffers.kernels)) {
    DenseI64ArrayAttr offsets = fuse::getFuseDialect(func.getContext())
                                    .getOffsetsAttrHelper()
                                    .getAttr(kernel);
    if (!offsets || offsets.size() != int64_t(kernel->getNumResults()))
      return std::nullopt;
    for (auto [value, offset] :
         llvm::zip(kernel->getResults(), offsets.asArrayRef())) {
      int id = buffers.bufferOf.lookup(value);
      plan.offset[id] = offset;
      plan.lifetime[id] = {int(step), int(step)};
    }
  }
  for (auto [step, node] : llvm::enumerate(graph.kernels))
    for (int b : node.reads)
      if (plan.lifetime[b].first >= 0)
        plan.lifetime[b].second = std::max<int>(plan.lifetime[b].second, step);
  for (size_t b = 0; b < graph.buffers.size(); ++b) {
    if (plan.lifetime[b].first >= 0 && graph.buffers[b].liveToEnd)
      plan.lifetime[b].second = steps - 1;
    if (plan.offset[b] < 0)
      plan.lifetime[b] = {-1, -1};
  }
  // Buffers sharing an offset where one dies as the other is born are one
  // storage (in-place); the verifier then accepts their touching lifetimes.
  std::vector<int> byOffset;
  for (size_t b = 0; b < graph.buffers.size(); ++b)
    if (plan.offset[b] >= 0)
      byOffset.push_back(b);
  int nextStorage = 0;
  for (int b : byOffset)
    plan.storage[b] = nextStorage++;
  for (const KernelNode &node : graph.kernels)
    for (auto [out, in] : node.inPlace)
      if (plan.offset[out] >= 0 && plan.offset[out] == plan.offset[in] &&
          plan.lifetime[in].second == plan.lifetime[out].first)
        plan.storage[out] = plan.storage[in];
  return plan;
}

} // namespace opfuse
