//===- FuseOutlineKernels.cpp - Lone ops into groups of one ---------------===//
//
// After fusion every op that runs as a kernel of its own becomes a
// fuse.group of one, so that buffer planning and every emitter see one
// kind of kernel. Constants that nothing uses any more (splats copied into
// groups) are erased.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEOUTLINEKERNELS
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {

struct FuseOutlineKernelsPass
    : public opfuse::fuse::impl::FuseOutlineKernelsBase<
          FuseOutlineKernelsPass> {
  void runOnOperation() override;
};

} // namespace

void FuseOutlineKernelsPass::runOnOperation() {
  FuseDialect &dialect = getFuseDialect(&getContext());
  auto offsets = dialect.getOffsetsAttrHelper();
  auto tiling = dialect.getMatmulTilingAttrHelper();
  for (Block &block : getOperation().getBody()) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (!isElementwise(&op) && !isReduction(&op) && !isContraction(&op) &&
          !isDataMovement(&op))
        continue;
      // The kernel's notes move with it: a planned offset, a tiling.
      DenseI64ArrayAttr planned = offsets.getAttr(&op);
      MatmulTilingAttr ownTiling = tiling.getAttr(&op);
      GroupOp group = outlineIntoGroup({&op});
      if (!group)
        continue;
      if (planned)
        offsets.setAttr(group, planned);
      if (ownTiling)
        tiling.setAttr(group, ownTiling);
    }
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isa<ConstantOp>(op) && op.use_empty())
        op.erase();
  }
}
