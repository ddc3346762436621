//===- FusionCheck.cpp - Fused and unfused agree on the CPU ---------------===//
//
// --check-fusion: the differential test of the fusion passes. Fusion only
// regroups and recomputes ops, so the reference interpreter must produce the
// same bits before and after it. The comparison starts after fuse-decompose:
// composites decomposed into primitives round differently (that rewrite is
// checked against the f64 reference by --check instead).
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"
#include "ReferenceCost.h"
#include "Sharding.h"

#include "opfuse/Analysis/InputRanges.h"
#include "opfuse/Driver/Driver.h"
#include "opfuse/Pipeline/Pipeline.h"
#include "opfuse/Runtime/Spmd.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace opfuse {

int checkFusion(const DriverOptions &options, ModuleOp original) {
  OwningOpRef<ModuleOp> decomposed = original.clone();
  PassManager decompose(original.getContext());
  buildDecomposePasses(decompose);
  if (failed(applyMlirCommandLineOptions(decompose)) ||
      failed(decompose.run(*decomposed)))
    return ExitUnsupported;
  OwningOpRef<ModuleOp> fused = decomposed->clone();
  PassManager pm(original.getContext());
  buildFusionPasses(pm, options.compile);
  if (failed(applyMlirCommandLineOptions(pm)) || failed(pm.run(*fused)))
    return ExitUnsupported;
  func::FuncOp before = *decomposed->getOps<func::FuncOp>().begin();
  func::FuncOp after = *fused->getOps<func::FuncOp>().begin();

  // Seeded inputs as the GPU run would get them.
  std::vector<PlanBuffer> specs;
  SmallVector<double> ranges = seededInputRanges(before);
  for (auto [type, range] : llvm::zip(before.getArgumentTypes(), ranges)) {
    auto tensor = cast<RankedTensorType>(type);
    PlanBuffer spec;
    spec.seedRange = range;
    spec.dtype = *toDType(tensor.getElementType());
    spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    specs.push_back(std::move(spec));
  }
  // An SPMD run (--devices): the seeded global tensors, cut into each
  // device's arguments.
  const int64_t devices = std::max(options.devices, 1);
  if (options.devices && failed(checkCollectivesSpan(before, devices)))
    return ExitUsage;
  SmallVector<SmallVector<reference::Tensor>> arguments;
  if (options.devices) {
    const std::vector<int64_t> axes = shardAxes(before);
    for (const std::vector<HostBuffer> &shards :
         shardInputs(generateInputs(globalInputSpecs(specs, axes, devices),
                                    options.seed),
                     axes, devices))
      arguments.push_back(toReferenceTensors(before, shards));
  } else {
    arguments.push_back(
        toReferenceTensors(before, generateInputs(specs, options.seed)));
  }

  // Both runs on the host; say so up front when that takes long.
  ReferenceWork work;
  for (int64_t device = 0; device < devices; ++device) {
    work += referenceWork(before);
    work += referenceWork(after);
  }
  std::string cost = describeReferenceCost(
      work, /*gpuMatmuls=*/false,
      llvm::hardware_concurrency().compute_thread_count());
  if (!cost.empty())
    llvm::errs() << "opt-fuse: note: --check-fusion's reference will take "
                 << cost << "\n";
  const bool showProgress = llvm::sys::Process::StandardErrIsDisplayed();
  auto progress = [&](StringRef phase) {
    return showProgress ? referenceProgressLine("--check-fusion", phase)
                        : nullptr;
  };
  reference::Options unfusedRun, fusedRun;
  unfusedRun.progress = progress("unfused");
  fusedRun.progress = progress("fused");
  auto run = [&](func::FuncOp func, const reference::Options &how)
      -> FailureOr<SmallVector<SmallVector<reference::Tensor>>> {
    if (options.devices)
      return reference::interpretSpmd(func, arguments, how);
    FailureOr<SmallVector<reference::Tensor>> results =
        reference::interpret(func, arguments.front(), how);
    if (failed(results))
      return failure();
    return SmallVector<SmallVector<reference::Tensor>>{std::move(*results)};
  };
  FailureOr<SmallVector<SmallVector<reference::Tensor>>> unfusedOut =
      run(before, unfusedRun);
  if (failed(unfusedOut))
    return ExitUnsupported;
  FailureOr<SmallVector<SmallVector<reference::Tensor>>> fusedOut =
      run(after, fusedRun);
  if (failed(fusedOut))
    return ExitUnsupported;

  bool same = true;
  for (int64_t device = 0; device < devices; ++device) {
    std::string where =
        options.devices ? llvm::formatv("device {0} ", device).str() : "";
    for (auto [index, pair] : llvm::enumerate(
             llvm::zip((*unfusedOut)[device], (*fusedOut)[device]))) {
      auto &[a, b] = pair;
      int64_t differ = 0;
      for (int64_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a.data[i], &b.data[i], sizeof(double)) != 0 &&
            !(std::isnan(a.data[i]) && std::isnan(b.data[i])))
          ++differ;
      same &= differ == 0;
      llvm::outs() << llvm::formatv(
          "fusion check: {0}output #{1} ({2} elements): {3}\n", where, index,
          a.size(),
          differ == 0 ? std::string("identical before and after fusion")
                      : llvm::formatv("{0} elements differ", differ).str());
    }
  }
  return same ? ExitSuccess : ExitCheckFailed;
}

} // namespace opfuse
