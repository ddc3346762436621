//===- AttentionEmitter.cpp - Fused attention kernels from fuse.group -----===//
//
// The emitter of groups holding a fuse.attention: the attention with the
// head-splitting views it reads q, k and v through, and the elementwise
// ops and head-merging views of its epilogue, as one flash-style kernel
// (AttentionKernel.cpp).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "AttentionEmission.h"

#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::attention {

namespace {

/// The problem `group` poses and the tiling the options give it.
FailureOr<std::pair<AttentionProblem, AttentionTiling>>
planAttention(GroupOp group, const EmitContext &context) {
  FailureOr<AttentionProblem> problem = analyzeAttentionProblem(group);
  if (failed(problem))
    return failure();
  AttentionTiling tiling =
      chooseAttentionTiling(*problem, context.options.attentionTiling,
                            context.options.useTma, context.target);
  if (tiling.warpgroup) {
    if (context.target.chip != "sm_90" && context.target.chip != "sm_90a")
      return problem->op.emitError("attention-tiling: wgmma and tma tiles "
                                   "need sm_90; the target is ")
             << context.target.chip;
    if (std::optional<std::string> why =
            tiling.tma ? whyNoTmaAttention(*problem, tiling.blockN)
                       : whyNoWarpgroupAttention(*problem))
      return problem->op.emitError("attention-tiling: ") << *why;
  }
  if (std::optional<std::string> why = whyNoThreeConsumers(*problem, tiling))
    return problem->op.emitError("attention-tiling: ") << *why;
  if (std::optional<std::string> why = whyNoKeySplits(*problem, tiling))
    return problem->op.emitError("attention-tiling: ") << *why;
  if (std::optional<std::string> why = whyNoPersistence(*problem, tiling))
    return problem->op.emitError("attention-tiling: ") << *why;
  return std::pair{*problem, tiling};
}

class AttentionEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "attention"; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    if (!llvm::any_of(ops, [](Operation *op) { return isa<AttentionOp>(op); }))
      return EmitterMatch::notMine();
    if (std::optional<std::string> why = checkAttentionOps(ops))
      return EmitterMatch::refuse(*why);
    return EmitterMatch::accept();
  }

  std::string describeRefusal(const EmitterMatch &refusal) const override {
    return "not one attention kernel: " + refusal.reason;
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    auto planned = planAttention(group, context);
    if (failed(planned))
      return failure();
    auto &[problem, tiling] = *planned;
    const int64_t shared = attentionSharedBytes(problem, tiling);
    if (shared > kMaxSharedBytesPerBlock)
      return problem.op.emitError("the attention kernel's tiles need ")
             << shared << " bytes of shared memory; a block has at most "
             << kMaxSharedBytesPerBlock;
    return attentionLaunch(problem, tiling);
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override {
    auto planned = planAttention(group, context);
    if (failed(planned))
      return failure();
    auto &[problem, tiling] = *planned;
    return emitAttentionKernel(group, problem, tiling, config, module, name,
                               context);
  }
};

} // namespace
} // namespace opfuse::attention

namespace opfuse {

std::unique_ptr<KernelEmitter> createAttentionEmitter() {
  return std::make_unique<attention::AttentionEmitter>();
}

} // namespace opfuse
