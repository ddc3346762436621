//===- FuseToGPU.cpp - One gpu.func per fuse.group ------------------------===//
//
// Walks every function's groups in order and hands each to the first
// emitter of the registry that claims it: configure (the launch, and what
// the emitter records on the group), then emit into gpu.module
// @opfuse_kernels. The launch configuration goes on the group for the
// launch plan.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"

#include "GridDependencies.h"

#include "opfuse/Conversion/FuseToGPU/CanonicalOrder.h"
#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"
#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace opfuse {
#define GEN_PASS_DEF_CONVERTFUSETOGPU
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"
} // namespace opfuse

using namespace mlir;
using namespace opfuse;
using namespace opfuse::fuse;

namespace {

struct ConvertFuseToGPUPass
    : public opfuse::impl::ConvertFuseToGPUBase<ConvertFuseToGPUPass> {
  using ConvertFuseToGPUBase::ConvertFuseToGPUBase;
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// The kernel module, created with the target's chip when absent.
  gpu::GPUModuleOp getOrCreateKernelModule(const GpuTarget &target);
  /// Emits `group` as kernel `name`; false after an error.
  bool emitGroup(GroupOp group, gpu::GPUModuleOp kernels, StringRef name,
                 const EmitContext &context);

  EmitterOptions options;
};

/// Whether an emitter compiles `op` as a kernel of one (once outlined).
bool isEmittableAlone(Operation *op) {
  SmallVector<Value> results(op->getResults());
  return getKernelEmitters().select({op}, results).match.kind ==
         EmitterMatch::Kind::Accepted;
}

} // namespace

LogicalResult ConvertFuseToGPUPass::initialize(MLIRContext *context) {
  options.blockSize = blockSize;
  options.vectorsPerThread = vectorsPerThread;
  options.windowRows = windowRows;
  options.rowElementsPerThread = rowElementsPerThread;
  options.matmulTiling = matmulTiling;
  options.attentionTiling = attentionTiling;
  options.allowTF32 = allowTF32;
  options.useTma = useTma;
  options.warpSpecialize = warpSpecialize;
  options.pingPong = pingPong;
  options.vectorStores = vectorStores;
  options.maxGridBlocks = maxGridBlocks;
  options.numerics = numerics;
  options.earlyLaunch = earlyLaunch;
  if (std::optional<std::string> error = checkEmitterOptions(options))
    return emitError(UnknownLoc::get(context))
           << "convert-fuse-to-gpu: " << *error;
  return success();
}

gpu::GPUModuleOp
ConvertFuseToGPUPass::getOrCreateKernelModule(const GpuTarget &target) {
  ModuleOp module = getOperation();
  if (auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("opfuse_kernels"))
    return kernels;
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto kernels =
      gpu::GPUModuleOp::create(builder, module.getLoc(), "opfuse_kernels");
  kernels.setTargetsAttr(builder.getArrayAttr({NVVM::NVVMTargetAttr::get(
      &getContext(), /*optLevel=*/3, "nvptx64-nvidia-cuda", target.chip)}));
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  builder.getUnitAttr());
  return kernels;
}

bool ConvertFuseToGPUPass::emitGroup(GroupOp group, gpu::GPUModuleOp kernels,
                                     StringRef name,
                                     const EmitContext &context) {
  KernelEmitterRegistry::Selection selection =
      getKernelEmitters().select(group);
  if (!selection.emitter) {
    group.emitError("no kernel emitter compiles this group");
    return false;
  }
  if (selection.match.kind == EmitterMatch::Kind::Refused) {
    Operation *at =
        selection.match.at ? selection.match.at : group.getOperation();
    at->emitError(selection.emitter->describeRefusal(selection.match));
    return false;
  }
  const KernelEmitter &emitter = *selection.emitter;
  FuseDialect &dialect = getFuseDialect(&getContext());
  // What an earlier run recorded describes another kernel.
  auto schedule = dialect.getGemmScheduleAttrHelper();
  auto maps = dialect.getTensorMapsAttrHelper();
  auto splitWorkspace = dialect.getSplitWorkspaceAttrHelper();
  auto earlyLaunch = dialect.getEarlyLaunchAttrHelper();
  if (earlyLaunch.isAttrPresent(group))
    earlyLaunch.removeAttr(group);
  if (schedule.isAttrPresent(group))
    schedule.removeAttr(group);
  if (maps.isAttrPresent(group))
    maps.removeAttr(group);
  if (splitWorkspace.isAttrPresent(group))
    splitWorkspace.removeAttr(group);
  FailureOr<LaunchConfig> config = emitter.configure(group, context);
  if (failed(config) ||
      failed(emitter.emit(group, *config, kernels, name, context)))
    return false;
  // The PTX must not depend on the C++ compiler that built opfuse.
  if (Operation *kernel = kernels.lookupSymbol(name))
    sortIntoCanonicalOrder(kernel, emitter.canonicalLoadBatch());
  if (options.earlyLaunch && hasGridDependencyControl(context.target.chip)) {
    auto kernel = kernels.lookupSymbol<gpu::GPUFuncOp>(name);
    if (!kernel) {
      group.emitError("internal error: emitter '")
          << emitter.getName() << "' built no kernel '" << name << "'";
      return false;
    }
    waitAtEntry(kernel);
    earlyLaunch.setAttr(group, UnitAttr::get(&getContext()));
  }

  Builder builder(&getContext());
  dialect.getKernelAttrHelper().setAttr(
      group, SymbolRefAttr::get(kernels.getSymNameAttr(),
                                {FlatSymbolRefAttr::get(&getContext(), name)}));
  dialect.getGridAttrHelper().setAttr(
      group, builder.getDenseI64ArrayAttr({config->grid, 1, 1}));
  dialect.getBlockAttrHelper().setAttr(
      group, builder.getDenseI64ArrayAttr({config->block, 1, 1}));
  if (config->sharedBytes > 0)
    dialect.getSharedBytesAttrHelper().setAttr(
        group, builder.getI64IntegerAttr(config->sharedBytes));
  if (!config->tensorMaps.empty()) {
    SmallVector<Attribute> list;
    for (const TensorMapSpec &map : config->tensorMaps)
      list.push_back(TensorMapAttr::get(&getContext(), map.input, map.dims,
                                        map.strides, map.box, map.offset));
    maps.setAttr(group, builder.getArrayAttr(list));
  }
  if (config->splits > 1)
    splitWorkspace.setAttr(group, builder.getDenseI64ArrayAttr(
                                      {config->splits, config->splitCounters,
                                       config->workspaceBytes}));
  return true;
}

void ConvertFuseToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  const GpuTarget target = getTarget(module);
  // A tiling the chip cannot run is an error even without a GEMM.
  std::string tilingError;
  if (!resolveMatmulTiling(options.matmulTiling, target.chip, tilingError)) {
    module.emitError("matmul-tiling: ") << tilingError;
    return signalPassFailure();
  }
  gpu::GPUModuleOp kernels = getOrCreateKernelModule(target);
  const EmitContext context{options, target};

  bool failedAny = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    int kernelIndex = 0;
    for (Operation &op : func.getBody().getOps()) {
      // Reshapes alias their input; constants become initialised buffers.
      if (isa<func::ReturnOp, ReshapeOp, ConstantOp>(op))
        continue;
      // Collectives are steps of the launch plan (NCCL calls on the
      // kernels' stream), not kernels.
      if (isCollective(&op)) {
        if (std::optional<std::string> why = whyNotOneNcclCall(&op)) {
          op.emitError(*why);
          failedAny = true;
        }
        continue;
      }
      auto group = dyn_cast<GroupOp>(op);
      if (!group) {
        if (isComposite(&op))
          op.emitError("'")
              << op.getName()
              << "' is emitted as its primitives: run fuse-decompose first";
        else if (isEmittableAlone(&op))
          op.emitError("'") << op.getName()
                            << "' is outside a fuse.group: run "
                               "fuse-outline-kernels first";
        else
          op.emitError("'")
              << op.getName() << "' is not yet supported for GPU emission";
        failedAny = true;
        continue;
      }
      std::string name =
          (func.getSymName() + "_k" + Twine(kernelIndex++)).str();
      failedAny |= !emitGroup(group, kernels, name, context);
    }
  }
  // wgmma is an sm_90a instruction; PTX for sm_90a runs on sm_90 parts
  // (H100, H200) only, which is what such a module targets anyway. Any
  // emitter may have used it (GEMM and attention kernels).
  bool usedWgmma = false;
  kernels.walk([&](Operation *op) {
    if (isa<NVVM::WgmmaMmaAsyncOp>(op)) {
      usedWgmma = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (usedWgmma && target.chip == "sm_90")
    kernels.setTargetsAttr(OpBuilder(&getContext())
                               .getArrayAttr({NVVM::NVVMTargetAttr::get(
                                   &getContext(), /*optLevel=*/3,
                                   "nvptx64-nvidia-cuda", "sm_90a")}));
  if (failedAny)
    signalPassFailure();
}
