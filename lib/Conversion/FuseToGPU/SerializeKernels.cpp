//===- SerializeKernels.cpp - Kernel modules to PTX -----------------------===//
//
// gpu-module-to-binary with one hook: the optimised LLVM IR goes through
// the ptxas workarounds before the NVPTX backend. MLIR's pass has no
// option for the hook, so this one builds the same TargetOptions itself.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"
#include "opfuse/Conversion/FuseToGPU/PtxasWorkarounds.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace opfuse {
#define GEN_PASS_DEF_SERIALIZEKERNELS
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"
} // namespace opfuse

using namespace mlir;

namespace {
struct SerializeKernelsPass
    : public opfuse::impl::SerializeKernelsBase<SerializeKernelsPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void SerializeKernelsPass::runOnOperation() {
  std::optional<SymbolTable> table;
  auto lazyTable = [&]() -> SymbolTable * {
    if (!table)
      table.emplace(getOperation());
    return &*table;
  };
  auto workarounds = [](llvm::Module &module) {
    (void)opfuse::rewriteSignedMinMaxForPtxas(module);
  };
  gpu::TargetOptions options(toolkitPath, /*librariesToLink=*/{},
                             /*cmdOptions=*/{}, /*elfSection=*/{},
                             gpu::CompilationTarget::Assembly, lazyTable,
                             /*initialLlvmIRCallback=*/{},
                             /*linkedLlvmIRCallback=*/{}, workarounds);
  if (failed(
          gpu::transformGpuModulesToBinaries(getOperation(), nullptr, options)))
    return signalPassFailure();
}
