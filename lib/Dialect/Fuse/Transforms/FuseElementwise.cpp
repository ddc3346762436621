//===- FuseElementwise.cpp - Group elementwise chains into kernels --------===//
//
// Forms clusters of elementwise and broadcast ops, latest op first, growing
// each through its operands; then turns every cluster into a fuse.group.
// Shared producers are recomputed or kept as extra outputs as the roofline
// cost model (opfuse/Analysis/CostModel.h) predicts is faster; a producer
// joins only when the grouped graph stays acyclic. A matmul joins the
// elementwise kernel after it, which becomes its epilogue, and stores the
// slices its result is read through as outputs of their own.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "Clustering.h"
#include "FusionStatistics.h"
#include "PrologueFusion.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"

#include "mlir/Analysis/TopologicalSortUtils.h"

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;
using opfuse::fuse::fusion::Cluster;
using opfuse::fuse::fusion::Clustering;
using opfuse::fuse::fusion::count;
namespace stat = opfuse::fuse::fusion::stat;

namespace {

struct FuseElementwisePass
    : public opfuse::fuse::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;
  void runOnOperation() override;
};

} // namespace

void FuseElementwisePass::runOnOperation() {
  if (!isGemmPrologueMode(gemmPrologues)) {
    getOperation().emitError("gemm-prologues=")
        << gemmPrologues << ": expected auto, always or never";
    return signalPassFailure();
  }
  const opfuse::CostModel model(opfuse::fuse::getTarget(getOperation()));
  for (Block &block : getOperation().getBody()) {
    const int64_t bytesBefore = fusion::bytesThroughMemory(block);
    Clustering clustering(block, model, explain, gemmPrologues);
    clustering.run();
    for (Cluster &cluster : clustering.clusters) {
      count(stat::kernels);
      if (cluster.ops.size() > 1)
        count(stat::opsFused, cluster.ops.size());
      outlineIntoGroup(cluster.ops.getArrayRef());
    }
    // Splat constants now live inside the groups that use them.
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isSplatConstant(&op) && op.use_empty())
        op.erase();
    const int64_t saved = bytesBefore - fusion::bytesThroughMemory(block);
    if (saved > 0)
      count(stat::bytesSaved, saved);
    // A group sits where its last op was; an earlier op's output may be
    // used before that point, so restore a def-before-use order.
    if (!sortTopologically(&block)) {
      getOperation().emitError("internal error: fuse-elementwise produced a "
                               "cyclic graph; please report this compiler "
                               "bug");
      return signalPassFailure();
    }
  }
}
