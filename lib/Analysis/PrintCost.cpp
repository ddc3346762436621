//===- PrintCost.cpp - Remarks with the cost model's view of a function ---===//

#include "opfuse/Analysis/Passes.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace opfuse {
#define GEN_PASS_DEF_FUSEPRINTCOST
#include "opfuse/Analysis/Passes.h.inc"
} // namespace opfuse

using namespace mlir;

namespace {
struct FusePrintCostPass
    : public opfuse::impl::FusePrintCostBase<FusePrintCostPass> {
  using FusePrintCostBase::FusePrintCostBase;
  void runOnOperation() override;
};
} // namespace

void FusePrintCostPass::runOnOperation() {
  func::FuncOp func = getOperation();
  std::optional<opfuse::CostModel> model(opfuse::fuse::getTarget(func));
  opfuse::GraphAnalysis graph = opfuse::analyzeFunction(func, *model);
  auto kernel = graph.kernels.begin();
  for (Operation &op : func.getBody().getOps()) {
    if (!opfuse::launchesKernel(&op))
      continue;
    const opfuse::Prediction &p = kernel->prediction;
    std::string ops = llvm::join(kernel->ops, ", ");
    Operation *ceilingOp = &op;
    if (auto group = dyn_cast<opfuse::fuse::GroupOp>(op))
      ceilingOp = &group.getBody().front().front();
    op.emitRemark() << llvm::formatv(
        "kernel @{0} ({1}): class {2}, bound {3}; {4} FLOPs, {5} bytes{6}, "
        "{7:F2} FLOP/B (ridge {8:F2}); predicted {9:F2} us (compute {10:F2}, "
        "memory {11:F2}{12}{13}, launch {14:F2})",
        kernel->name, ops, kernel->opClass, opfuse::boundName(p.bound),
        static_cast<int64_t>(kernel->work.flops), kernel->work.bytes,
        kernel->work.linkBytes
            ? llvm::formatv(", {0} link bytes", kernel->work.linkBytes).str()
            : std::string(),
        kernel->work.intensity(), model->ridge(ceilingOp), p.seconds() * 1e6,
        p.computeSeconds * 1e6, p.memorySeconds * 1e6,
        p.fitsInL2 ? " from L2" : "",
        kernel->work.linkBytes
            ? llvm::formatv(", link {0:F2}", p.linkSeconds * 1e6).str()
            : std::string(),
        p.launchSeconds * 1e6);
    ++kernel;
  }
}
