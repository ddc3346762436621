//===- FusionCheck.cpp - Fused and unfused agree on the CPU ---------------===//
//
// --check-fusion: the differential test of the fusion passes. Fusion only
// regroups and recomputes ops, so the reference interpreter must produce the
// same bits before and after it.
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace opfuse {

int checkFusion(const DriverOptions &options, ModuleOp original) {
  OwningOpRef<ModuleOp> fused = original.clone();
  PassManager pm(original.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(fuse::createFuseElementwise());
  if (failed(pm.run(*fused)))
    return ExitUnsupported;
  func::FuncOp before = *original.getOps<func::FuncOp>().begin();
  func::FuncOp after = *fused->getOps<func::FuncOp>().begin();

  // Seeded inputs as the GPU run would get them.
  LaunchPlan signature;
  for (Type type : before.getArgumentTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    PlanBuffer buffer;
    buffer.id = signature.buffers.size();
    buffer.dtype = *toDType(tensor.getElementType());
    buffer.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    signature.inputs.push_back(buffer.id);
    signature.buffers.push_back(buffer);
  }
  SmallVector<reference::Tensor> arguments =
      toReferenceTensors(before, generateInputs(signature, options.seed));

  FailureOr<SmallVector<reference::Tensor>> unfusedOut =
      reference::interpret(before, arguments);
  if (failed(unfusedOut))
    return ExitUnsupported;
  FailureOr<SmallVector<reference::Tensor>> fusedOut =
      reference::interpret(after, arguments);
  if (failed(fusedOut))
    return ExitUnsupported;

  bool same = true;
  for (auto [index, pair] : llvm::enumerate(llvm::zip(*unfusedOut, *fusedOut))) {
    auto &[a, b] = pair;
    int64_t differ = 0;
    for (int64_t i = 0; i < a.size(); ++i)
      if (std::memcmp(&a.data[i], &b.data[i], sizeof(double)) != 0 &&
          !(std::isnan(a.data[i]) && std::isnan(b.data[i])))
        ++differ;
    same &= differ == 0;
    llvm::outs() << llvm::formatv(
        "fusion check: output #{0} ({1} elements): {2}\n", index, a.size(),
        differ == 0 ? std::string("identical before and after fusion")
                    : llvm::formatv("{0} elements differ", differ).str());
  }
  return same ? ExitSuccess : ExitCheckFailed;
}

} // namespace opfuse
