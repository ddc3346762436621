//===- DedupKernels.cpp - One kernel for identical groups -----------------===//
//
// Kernels are compared on their generic printed form without their names:
// emission is deterministic (CanonicalOrder.cpp), so two groups that compute
// the same thing on the same shapes print the same, and printing is far
// cheaper than what it saves (LLVM and ptxas on a GEMM kernel).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace opfuse {
#define GEN_PASS_DEF_DEDUPKERNELS
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"
} // namespace opfuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {
struct DedupKernelsPass
    : public opfuse::impl::DedupKernelsBase<DedupKernelsPass> {
  void runOnOperation() override;
};

/// `kernel` printed without its name.
std::string fingerprint(gpu::GPUFuncOp kernel) {
  StringAttr name = SymbolTable::getSymbolName(kernel);
  SymbolTable::setSymbolName(kernel, "");
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  SymbolTable::setSymbolName(kernel, name);
  return text;
}
} // namespace

void DedupKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("opfuse_kernels");
  if (!kernels)
    return;
  llvm::StringMap<StringAttr> firstWith;
  DenseMap<StringAttr, StringAttr> replacement;
  for (auto kernel :
       llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>())) {
    auto [it, inserted] = firstWith.try_emplace(
        fingerprint(kernel), SymbolTable::getSymbolName(kernel));
    if (inserted)
      continue;
    replacement[SymbolTable::getSymbolName(kernel)] = it->second;
    kernel.erase();
  }
  if (replacement.empty())
    return;
  auto *dialect = getContext().getLoadedDialect<FuseDialect>();
  auto kernelAttr = dialect->getKernelAttrHelper();
  auto stepName = dialect->getStepNameAttrHelper();
  module.walk([&](GroupOp group) {
    SymbolRefAttr kernel = kernelAttr.getAttr(group);
    if (!kernel)
      return;
    auto it = replacement.find(kernel.getLeafReference());
    if (it == replacement.end())
      return;
    if (!stepName.isAttrPresent(group))
      stepName.setAttr(group, kernel.getLeafReference());
    kernelAttr.setAttr(
        group, SymbolRefAttr::get(kernel.getRootReference(),
                                  {FlatSymbolRefAttr::get(it->second)}));
  });
}
