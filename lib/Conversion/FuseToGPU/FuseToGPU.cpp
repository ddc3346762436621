//===- FuseToGPU.cpp - One gpu.func per fuse.group ------------------------===//
//
// Wraps lone elementwise ops, reductions and matmuls in groups of one,
// emits every group into gpu.module @opfuse_kernels (with the matmul
// emitter when it holds a matmul, the row emitter when it holds a
// reduction, the loop emitter otherwise), and records each kernel's symbol
// and launch configuration on its group for the launch plan.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"

#include "opfuse/Analysis/BufferGraph.h"
#include "opfuse/Analysis/Target.h"

#include "opfuse/Conversion/FuseToGPU/LoopEmitter.h"
#include "opfuse/Conversion/FuseToGPU/MatmulEmitter.h"
#include "opfuse/Conversion/FuseToGPU/RowEmitter.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
  void runOnOperation() override;
};

} // namespace

void ConvertFuseToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  OpBuilder builder(context);

  std::string tilingError;
  std::optional<MatmulTiling> tiling =
      resolveMatmulTiling(matmulTiling, chip, tilingError);
  if (!tiling) {
    module.emitError("matmul-tiling: ") << tilingError;
    return signalPassFailure();
  }
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("opfuse_kernels");
  if (!kernels) {
    builder.setInsertionPointToEnd(module.getBody());
    kernels = gpu::GPUModuleOp::create(builder, module.getLoc(),
                                       "opfuse_kernels");
    Attribute target = parseAttribute(
        "#nvvm.target<chip = \"" + chip + "\", O = 3>", context);
    if (!target) {
      module.emitError("invalid chip '") << chip << "'";
      return signalPassFailure();
    }
    kernels.setTargetsAttr(builder.getArrayAttr({target}));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
  }

  llvm::Expected<GpuTarget> target = loadTarget(targetSpec);
  if (!target) {
    module.emitError("target: ") << llvm::toString(target.takeError());
    return signalPassFailure();
  }
  // A group's own fuse.matmul_tiling (from --autotune), or its
  // contraction's (written in the model), comes first; then the pass
  // option, where "auto" asks the tile model.
  auto chooseTiling = [&](GroupOp group) -> FailureOr<MatmulTiling> {
    for (Operation *holder : {group.getOperation(), findContraction(group)}) {
      auto text = holder->getAttrOfType<StringAttr>(kMatmulTilingAttr);
      if (!text)
        continue;
      std::optional<MatmulTiling> own =
          resolveMatmulTiling(text.getValue(), chip, tilingError);
      if (!own)
        return holder->emitError(kMatmulTilingAttr) << ": " << tilingError;
      return *own;
    }
    if (matmulTiling != "auto")
      return *tiling;
    std::vector<TilingEstimate> ranked =
        rankMatmulTilings(group, chip, *target);
    if (ranked.empty())
      return group.emitError("no matmul tiling fits the shared memory of ")
             << target->name;
    return ranked.front().tiling;
  };


  bool failedAny = false, usedWgmma = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (Operation &op : llvm::make_early_inc_range(func.getBody().getOps()))
      if (isElementwise(&op) || isReduction(&op) || isContraction(&op)) {
        // A lone op becomes a kernel of one, keeping its planned offsets.
        Attribute offsets = op.getAttr(opfuse::kOffsetsAttr);
        Attribute tilingAttr = op.getAttr(kMatmulTilingAttr);
        GroupOp group = outlineIntoGroup({&op});
        if (group && offsets)
          group->setAttr(opfuse::kOffsetsAttr, offsets);
        if (group && tilingAttr)
          group->setAttr(kMatmulTilingAttr, tilingAttr);
      }
    for (Operation &op : llvm::make_early_inc_range(func.getBody().getOps()))
      if (isa<ConstantOp>(op) && op.use_empty())
        op.erase();

    int kernelIndex = 0;
    for (Operation &op : func.getBody().getOps()) {
      // Reshapes alias their input; constants become initialised buffers.
      if (isa<func::ReturnOp, ReshapeOp, ConstantOp>(op))
        continue;
      auto group = dyn_cast<GroupOp>(op);
      if (!group) {
        if (isComposite(&op))
          op.emitError("'")
              << op.getName()
              << "' is emitted as its primitives: run fuse-decompose first";
        else
          op.emitError("'") << op.getName()
                            << "' is not yet supported for GPU emission";
        failedAny = true;
        continue;
      }
      std::string name =
          (func.getSymName() + "_k" + Twine(kernelIndex++)).str();
      MatmulTiling groupTiling = *tiling;
      if (isGemmKernel(group)) {
        FailureOr<MatmulTiling> chosen = chooseTiling(group);
        if (failed(chosen)) {
          failedAny = true;
          continue;
        }
        groupTiling = *chosen;
        group->setAttr(kMatmulTilingAttr,
                       builder.getStringAttr(formatMatmulTiling(groupTiling)));
        usedWgmma |= groupTiling.instruction == MmaInstruction::Warpgroup;
      }
      FailureOr<LaunchConfig> config =
          isGemmKernel(group)
              ? emitGemmKernel(group, kernels, name, groupTiling, allowTF32,
                               &*target, useTma, warpSpecialize,
                               pingPong)
          : isRowKernel(group)
              ? emitRowKernel(group, kernels, name, blockSize,
                              rowElementsPerThread)
              : emitLoopKernel(group, kernels, name, blockSize,
                               vectorsPerThread);
      if (failed(config)) {
        failedAny = true;
        continue;
      }
      group->setAttr("fuse.kernel",
                     SymbolRefAttr::get(kernels.getSymNameAttr(),
                                        {FlatSymbolRefAttr::get(
                                            context, name)}));
      group->setAttr("fuse.grid", builder.getDenseI64ArrayAttr(
                                      {config->grid, 1, 1}));
      group->setAttr("fuse.block", builder.getDenseI64ArrayAttr(
                                       {config->block, 1, 1}));
      if (config->sharedBytes > 0)
        group->setAttr("fuse.shared_bytes",
                       builder.getI64IntegerAttr(config->sharedBytes));
      group->removeAttr(kGemmScheduleAttr);
      if (!config->schedule.empty())
        group->setAttr(kGemmScheduleAttr,
                       builder.getStringAttr(config->schedule));
      // A map list the input carried is not this kernel's.
      group->removeAttr(kTensorMapsAttr);
      if (!config->tensorMaps.empty()) {
        SmallVector<Attribute> maps;
        for (const TensorMapSpec &map : config->tensorMaps)
          maps.push_back(builder.getDictionaryAttr({
              builder.getNamedAttr("input",
                                   builder.getI64IntegerAttr(map.input)),
              builder.getNamedAttr("dims",
                                   builder.getDenseI64ArrayAttr(map.dims)),
              builder.getNamedAttr("strides",
                                   builder.getDenseI64ArrayAttr(map.strides)),
              builder.getNamedAttr("box",
                                   builder.getDenseI64ArrayAttr(map.box)),
          }));
        group->setAttr(kTensorMapsAttr, builder.getArrayAttr(maps));
      }
    }
  }
  // wgmma is an sm_90a instruction; PTX for sm_90a runs on sm_90 parts
  // (H100, H200) only, which is what such a module targets anyway.
  if (usedWgmma && chip == "sm_90")
    kernels.setTargetsAttr(builder.getArrayAttr(
        {parseAttribute("#nvvm.target<chip = \"sm_90a\", O = 3>", context)}));
  if (failedAny)
    signalPassFailure();
}
