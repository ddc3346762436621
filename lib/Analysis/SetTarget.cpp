//===- SetTarget.cpp - The module's GPU target, set once ------------------===//
//
// Loads a built-in target or a target file in initialize(), so that a bad
// option fails before any IR is touched, and writes it on the module as
// #fuse.target for every later pass to read.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/Passes.h"

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"

namespace opfuse {
#define GEN_PASS_DEF_FUSESETTARGET
#include "opfuse/Analysis/Passes.h.inc"
} // namespace opfuse

using namespace mlir;

namespace {
struct FuseSetTargetPass
    : public opfuse::impl::FuseSetTargetBase<FuseSetTargetPass> {
  using FuseSetTargetBase::FuseSetTargetBase;
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

  std::optional<opfuse::GpuTarget> loaded;
};
} // namespace

LogicalResult FuseSetTargetPass::initialize(MLIRContext *context) {
  llvm::Expected<opfuse::GpuTarget> target = opfuse::loadTarget(this->target);
  if (!target)
    return emitError(UnknownLoc::get(context))
           << "fuse-set-target: " << llvm::toString(target.takeError());
  if (!chip.empty()) {
    llvm::StringRef number = llvm::StringRef(chip).drop_front(3);
    unsigned version;
    if (!llvm::StringRef(chip).starts_with("sm_") ||
        number.drop_back(number.ends_with("a")).getAsInteger(10, version))
      return emitError(UnknownLoc::get(context))
             << "fuse-set-target: chip '" << chip
             << "' is not an SM architecture (sm_80, sm_90, sm_90a, ...)";
    target->chip = chip;
  }
  loaded = std::move(*target);
  return success();
}

void FuseSetTargetPass::runOnOperation() {
  ModuleOp module = getOperation();
  opfuse::fuse::getFuseDialect(&getContext())
      .getTargetAttrHelper()
      .setAttr(module, opfuse::fuse::TargetAttr::get(&getContext(), *loaded));
}
