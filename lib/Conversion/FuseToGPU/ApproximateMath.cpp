//===- ApproximateMath.cpp - Math without libdevice -----------------------===//
//
// MLIR ships the polynomial approximations as patterns only; this pass
// applies them (after expanding powf and friends) to a kernel module.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opfuse {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"
} // namespace opfuse

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public opfuse::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override;
};
} // namespace

void ApproximateMathPass::runOnOperation() {
  RewritePatternSet patterns(&getContext());
  math::populateExpansionPatterns(patterns);
  populateMathPolynomialApproximationPatterns(patterns);
  if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
    return signalPassFailure();
}
