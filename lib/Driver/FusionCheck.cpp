//===- FusionCheck.cpp - Fused and unfused agree on the CPU ---------------===//
//
// --check-fusion: the differential test of the fusion passes. Fusion only
// regroups and recomputes ops, so the reference interpreter must produce the
// same bits before and after it. The comparison starts after fuse-decompose:
// composites decomposed into primitives round differently, so that rewrite
// is checked apart, the model as written (f64 sums) against the decomposed
// one within --check's tolerances.
//
//===----------------------------------------------------------------------===//

#include "CheckTolerance.h"
#include "GpuRun.h"
#include "ReferenceCost.h"
#include "Sharding.h"

#include "opfuse/Analysis/InputRanges.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"
#include "opfuse/Driver/Driver.h"
#include "opfuse/Pipeline/Pipeline.h"
#include "opfuse/Report/OutputCheck.h"
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

namespace {

/// Whether fuse-decompose rewrites anything in `func`.
bool hasDecomposedOps(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) { found |= fuse::isDecomposedOp(op); });
  return found;
}

/// fuse-decompose's rewrites against the ops they replace: the decomposed
/// model's outputs (`decomposed`, the reference's run before fusion)
/// against the model as written with f64 sums, within --check's
/// tolerances. The fusion check cannot see a wrong decomposition (it
/// starts after it), and neither can --check (its reference interprets the
/// kernels as fused); this can.
bool decompositionMatches(func::FuncOp written,
                          ArrayRef<reference::Tensor> arguments,
                          ArrayRef<reference::Tensor> decomposed) {
  reference::Options exact;
  exact.f64Accumulation = true;
  FailureOr<SmallVector<reference::Tensor>> expected =
      reference::interpret(written, arguments, exact);
  if (failed(expected))
    return false;
  FailureOr<SmallVector<OutputErrorScale>> scales =
      computeErrorScales(written, arguments);
  if (failed(scales))
    return false;
  std::vector<HostBuffer> outputs;
  for (const reference::Tensor &t : decomposed) {
    std::optional<DType> dtype = toDType(t.elementType);
    if (!dtype)
      return false;
    HostBuffer buffer = makeHostBuffer(
        *dtype, std::vector<int64_t>(t.shape.begin(), t.shape.end()));
    for (int64_t i = 0; i < t.size(); ++i)
      buffer.set(i, t.data[i]);
    outputs.push_back(std::move(buffer));
  }
  std::vector<OutputCheck> checks = compareOutputs(
      written, *expected, *scales, outputs, /*tf32=*/false, /*strict=*/false);
  std::string text;
  llvm::raw_string_ostream os(text);
  printOutputChecks(os, checks);
  SmallVector<StringRef> lines;
  StringRef(text).rtrim('\n').split(lines, '\n');
  for (StringRef line : lines)
    llvm::outs() << "decomposition check: "
                 << line.drop_front(line.starts_with("check ") ? 6 : 0) << "\n";
  return llvm::all_of(checks, [](const OutputCheck &c) { return c.pass; });
}

} // namespace

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
  // The composites as written against their primitives (one device: the
  // SPMD reference runs primitives only).
  if (!options.devices) {
    func::FuncOp written = *original.getOps<func::FuncOp>().begin();
    if (hasDecomposedOps(written))
      same &=
          decompositionMatches(written, arguments.front(), unfusedOut->front());
  }
  return same ? ExitSuccess : ExitCheckFailed;
}

} // namespace opfuse
