//===- FusePlanMemory.cpp - Order kernels and plan one arena --------------===//
//
// The planning itself is MLIR-free (opfuse/Analysis/MemoryPlan.h); this pass
// builds the kernel graph, moves the ops into the chosen order, checks the
// plan and stores it in the IR.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "opfuse/Analysis/BufferGraph.h"
#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Support/PassStatistics.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEPLANMEMORY
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using opfuse::fuse::explainAt;
using opfuse::fuse::ExplainKind;

namespace {

/// fuse-plan-memory's statistics (--mlir-pass-statistics), summed over the
/// functions planned.
namespace stat {
using opfuse::PassStatistic;
constexpr PassStatistic arena{"arena-bytes", "Bytes of the arenas planned"};
constexpr PassStatistic lowerBound{
    "lower-bound-bytes", "Bytes of the max-live lower bounds of those arenas"};
constexpr PassStatistic saved{
    "bytes-saved", "Bytes the arenas save over a buffer per intermediate"};
constexpr PassStatistic inPlace{
    "in-place", "Outputs written in place over an input that dies there"};
constexpr PassStatistic kernels{"kernels", "Kernels ordered"};
} // namespace stat

void count(const opfuse::PassStatistic &statistic, uint64_t value) {
  if (value > 0)
    opfuse::addPassStatistic("fuse-plan-memory", statistic, value);
}
struct FusePlanMemoryPass
    : public opfuse::fuse::impl::FusePlanMemoryBase<FusePlanMemoryPass> {
  using FusePlanMemoryBase::FusePlanMemoryBase;
  void runOnOperation() override;
};

/// Moves the kernels into `order`, each preceded by the reshapes it needs
/// that have not moved yet; everything else follows in program order. Every
/// moved op lands before the terminator after its operands. Constants (ops
/// without operands) stay where they are, ahead of everything moved, so
/// their buffers keep their order in the launch plan.
void reorder(func::FuncOp func, ArrayRef<Operation *> kernels,
             ArrayRef<int> order) {
  Block &block = func.getBody().front();
  Operation *terminator = block.getTerminator();
  llvm::SmallPtrSet<Operation *, 32> moved;
  std::function<void(Operation *)> place = [&](Operation *op) {
    if (op->getNumOperands() == 0 || !moved.insert(op).second)
      return;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (def->getBlock() == &block)
          place(def);
    op->moveBefore(terminator);
  };
  SmallVector<Operation *> rest;
  for (Operation &op : block.without_terminator())
    rest.push_back(&op);
  for (int k : order)
    place(kernels[k]);
  for (Operation *op : rest)
    place(op);
}
} // namespace

void FusePlanMemoryPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  opfuse::FunctionBuffers buffers =
      opfuse::buildFunctionBuffers(func, planOutputs);
  opfuse::MemoryPlan plan = opfuse::planMemory(buffers.graph);
  // Name buffers after the kernels' places in the new order, as
  // convert-fuse-to-gpu and the report will.
  for (auto [step, k] : llvm::enumerate(plan.order))
    for (auto [index, b] : llvm::enumerate(buffers.graph.kernels[k].writes))
      buffers.graph.buffers[b].name =
          (func.getSymName() + "_k" + Twine(step) + ".out" + Twine(index))
              .str();
  if (std::optional<std::string> error =
          opfuse::verifyMemoryPlan(buffers.graph, plan)) {
    func.emitError("internal error: fuse-plan-memory made an invalid plan: ")
        << *error << "; please report this compiler bug";
    return signalPassFailure();
  }
  if (explain)
    for (auto [k, node] : llvm::enumerate(buffers.graph.kernels))
      for (auto [out, in] : node.inPlace)
        if (plan.storage[out] >= 0 && plan.storage[out] == plan.storage[in])
          explainAt(buffers.kernels[k], "fuse-plan-memory",
                    ExplainKind::Analysis, "in-place",
                    "writes " + buffers.graph.buffers[out].name +
                        " in place over " + buffers.graph.buffers[in].name +
                        ", which dies in this kernel");

  count(stat::arena, plan.arenaBytes);
  count(stat::lowerBound, plan.lowerBound);
  count(stat::saved, plan.naiveBytes > plan.arenaBytes
                         ? plan.naiveBytes - plan.arenaBytes
                         : 0);
  count(stat::inPlace, plan.inPlaceHits);
  count(stat::kernels, plan.order.size());

  // Offsets refer to buffers by kernel and result, which reordering keeps.
  annotateMemoryPlan(func, buffers, plan, planOutputs);
  reorder(func, buffers.kernels, plan.order);
  if (explain)
    explainAt(
        func, "fuse-plan-memory", ExplainKind::Analysis, "arena",
        llvm::formatv(
            "arena {0} bytes, lower bound {1} ({2:F4}x), naive "
            "{3} ({4:F2}x the arena); {5} kernels in {6} order, {7} in place, "
            "{8} placement",
            plan.arenaBytes, plan.lowerBound,
            plan.lowerBound ? double(plan.arenaBytes) / plan.lowerBound : 1.0,
            plan.naiveBytes,
            plan.arenaBytes ? double(plan.naiveBytes) / plan.arenaBytes : 0.0,
            plan.order.size(), plan.orderName, plan.inPlaceHits, plan.placement)
            .str());
}
