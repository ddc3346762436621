//===- SerializeKernels.cpp - Kernel modules to PTX -----------------------===//
//
// gpu-module-to-binary with two changes. The optimised LLVM IR goes
// through the ptxas workarounds before the NVPTX backend (MLIR's pass has
// no option for the hook, so this one builds the same TargetOptions
// itself). And a module of many kernels is compiled in parts, on the
// context's threads: LLVM's optimiser and the NVPTX backend are most of a
// model's compile time and work on one module at a time. The parts are
// fixed by the kernels alone (never by the number of threads), so the PTX
// is the same on every machine; their texts are merged into the one
// module the runtime loads.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/Passes.h"
#include "opfuse/Conversion/FuseToGPU/PtxMerge.h"
#include "opfuse/Conversion/FuseToGPU/PtxasWorkarounds.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

#include <optional>

namespace opfuse {
#define GEN_PASS_DEF_SERIALIZEKERNELS
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"
} // namespace opfuse

using namespace mlir;

namespace {

/// At most this many parts: each links libdevice and starts LLVM's
/// pipelines once, and 8 keep 2 to 16 threads busy on a model's kernels.
constexpr size_t kMaxParts = 8;

/// Whether `op` is a kernel with a body: a gpu.func, or the llvm.func
/// convert-gpu-to-nvvm made of one.
bool isKernel(Operation &op) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  return function && !function.isExternal() &&
         (isa<gpu::GPUFuncOp>(op) || op.hasAttr("nvvm.kernel") ||
          op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName()));
}

/// The kernels of `module` in at most kMaxParts runs of consecutive ones
/// of about equal size (operations, nested ones counted).
SmallVector<SmallVector<Operation *>> partition(gpu::GPUModuleOp module) {
  SmallVector<Operation *> kernels;
  SmallVector<int64_t> sizes;
  int64_t total = 0;
  for (Operation &op : module.getBody()->getOperations()) {
    if (!isKernel(op))
      continue;
    int64_t size = 0;
    op.walk([&](Operation *) { ++size; });
    kernels.push_back(&op);
    sizes.push_back(size);
    total += size;
  }
  SmallVector<SmallVector<Operation *>> parts;
  const int64_t count = std::min<int64_t>(kMaxParts, kernels.size());
  if (count == 0)
    return parts;
  const int64_t target = (total + count - 1) / count;
  parts.emplace_back();
  int64_t filled = 0;
  for (auto [kernel, size] : llvm::zip(kernels, sizes)) {
    if (filled >= target && int64_t(parts.size()) < count) {
      parts.emplace_back();
      filled = 0;
    }
    parts.back().push_back(kernel);
    filled += size;
  }
  return parts;
}

struct SerializeKernelsPass
    : public opfuse::impl::SerializeKernelsBase<SerializeKernelsPass> {
  using Base::Base;
  void runOnOperation() override;
  LogicalResult serializeInParts(gpu::GPUModuleOp module,
                                 const gpu::TargetOptions &options);
};

} // namespace

LogicalResult
SerializeKernelsPass::serializeInParts(gpu::GPUModuleOp module,
                                       const gpu::TargetOptions &options) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.size() != 1)
    return module.emitError("fuse-serialize-kernels: a kernel module needs "
                            "exactly one target");
  auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
  if (!target)
    return module.emitError("fuse-serialize-kernels: the module's target "
                            "cannot serialise it");
  SmallVector<SmallVector<Operation *>> parts = partition(module);

  // Each part: a copy of the module holding only its kernels (and every
  // other symbol: declarations, globals, helper functions), built here,
  // compiled on the threads.
  SmallVector<OwningOpRef<gpu::GPUModuleOp>> copies;
  for (const SmallVector<Operation *> &part : parts) {
    llvm::SmallPtrSet<Operation *, 16> keep(part.begin(), part.end());
    OwningOpRef<gpu::GPUModuleOp> copy(module.clone());
    SmallVector<Operation *> others;
    for (auto [original, cloned] : llvm::zip(module.getBody()->getOperations(),
                                             copy->getBody()->getOperations()))
      if (isKernel(original) && !keep.contains(&original))
        others.push_back(&cloned);
    for (Operation *other : others)
      other->erase();
    copies.push_back(std::move(copy));
  }
  auto compile = [&](ArrayRef<Operation *> modules)
      -> std::optional<SmallVector<SmallVector<char, 0>>> {
    SmallVector<std::optional<SmallVector<char, 0>>> ptx(modules.size());
    if (failed(failableParallelForEach(
            &getContext(), llvm::seq<size_t>(0, modules.size()),
            [&](size_t i) -> LogicalResult {
              ptx[i] = target.serializeToObject(modules[i], options);
              return success(ptx[i].has_value());
            })))
      return std::nullopt;
    SmallVector<SmallVector<char, 0>> result;
    for (std::optional<SmallVector<char, 0>> &text : ptx)
      result.push_back(std::move(*text));
    return result;
  };
  SmallVector<Operation *> modules;
  for (OwningOpRef<gpu::GPUModuleOp> &copy : copies)
    modules.push_back(copy->getOperation());
  if (modules.size() <= 1)
    modules = {module.getOperation()};
  std::optional<SmallVector<SmallVector<char, 0>>> ptx = compile(modules);
  if (!ptx)
    return module.emitError("fuse-serialize-kernels: failed to compile the "
                            "kernels to PTX");

  SmallVector<StringRef> texts;
  for (const SmallVector<char, 0> &text : *ptx)
    texts.push_back(StringRef(text.data(), text.size()).rtrim('\0'));
  std::string why;
  std::optional<std::string> merged =
      texts.size() == 1 ? std::optional<std::string>(texts[0].str())
                        : opfuse::mergePtxModules(texts, why);
  if (!merged)
    return module.emitError("internal error: fuse-serialize-kernels cannot "
                            "merge the PTX of its parts: ")
           << why;
  SmallVector<char, 0> object(merged->begin(), merged->end());
  Attribute objectAttr = target.createObject(module, object, options);
  if (!objectAttr)
    return module.emitError("fuse-serialize-kernels: no object for the PTX");
  OpBuilder builder(module);
  gpu::BinaryOp::create(builder, module.getLoc(), module.getName(), Attribute(),
                        ArrayRef<Attribute>{objectAttr});
  module.erase();
  return success();
}

void SerializeKernelsPass::runOnOperation() {
  // Built before the threads start: they only read it.
  SymbolTable table(getOperation());
  auto workarounds = [](llvm::Module &module) {
    (void)opfuse::rewriteSignedMinMaxForPtxas(module);
  };
  gpu::TargetOptions options(
      toolkitPath, /*librariesToLink=*/{},
      /*cmdOptions=*/{}, /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
      [&]() { return &table; },
      /*initialLlvmIRCallback=*/{},
      /*linkedLlvmIRCallback=*/{}, workarounds);
  for (auto module : llvm::make_early_inc_range(
           getOperation().getBody()->getOps<gpu::GPUModuleOp>()))
    if (failed(serializeInParts(module, options)))
      return signalPassFailure();
}
