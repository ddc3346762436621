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
  // Printing is only for kernels that could be equal: the same function
  // type and op count (one 100,000-op kernel alone is never printed).
  DenseMap<std::pair<Type, int64_t>, SmallVector<gpu::GPUFuncOp>> candidates;
  for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
    int64_t ops = 0;
    kernel.walk([&](Operation *) { ++ops; });
    candidates[{kernel.getFunctionType(), ops}].push_back(kernel);
  }
  DenseMap<StringAttr, StringAttr> replacement;
  for (auto &entry : candidates) {
    if (entry.second.size() < 2)
      continue;
    llvm::StringMap<StringAttr> firstWith;
    for (gpu::GPUFuncOp kernel : entry.second) {
      auto [it, inserted] = firstWith.try_emplace(
          fingerprint(kernel), SymbolTable::getSymbolName(kernel));
      if (!inserted)
        replacement[SymbolTable::getSymbolName(kernel)] = it->second;
    }
  }
  for (auto kernel :
       llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>()))
    if (replacement.count(SymbolTable::getSymbolName(kernel)))
      kernel.erase();
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
