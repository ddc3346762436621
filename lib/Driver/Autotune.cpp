//===- Autotune.cpp - --autotune: measured GEMM tilings -------------------===//
//
// Each round compiles the whole function with every untuned GEMM kernel on
// its next candidate and times it with the executor's per-kernel events, so
// one round measures all GEMMs at once and every kernel is timed in the
// same surroundings (L2 state, clocks) as a real run. The candidates are the
// tile model's best, so a few rounds cover what the model cannot tell
// apart.
//
//===----------------------------------------------------------------------===//

#include "Autotune.h"

#include "TuningCache.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Runtime/CudaDriver.h"
#include "opfuse/Runtime/Executor.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

namespace {

/// Each round runs long enough for the GPU to reach the clocks it holds
/// under sustained load (shorter rounds ranked tiles at boost clocks, in
/// the wrong order: docs/autotune.md): it warms up for 100 ms and times
/// 300 ms of runs (from the tile model's estimate), at least 20 runs and
/// at most 2000.
constexpr double kWarmupSeconds = 0.1;
constexpr double kTimedSeconds = 0.3;
constexpr int kMinRuns = 20, kMaxRuns = 2000;

int runsFor(double seconds, double roundSeconds) {
  double runs = roundSeconds > 0 ? seconds / roundSeconds : kMaxRuns;
  return static_cast<int>(std::clamp<double>(runs, kMinRuns, kMaxRuns));
}

/// A GEMM kernel without a cached tiling.
struct PendingKernel {
  /// The group or lone contraction in the module being tuned.
  Operation *op;
  /// Its position among the function's kernels ("<function>_k<index>").
  int64_t kernelIndex;
  std::string name, key, label;
  std::vector<TilingEstimate> candidates;
  std::vector<double> measuredUs;
  /// Later kernels with the same key (a repeated layer): they get this
  /// kernel's tiling without being timed.
  SmallVector<std::pair<Operation *, std::string>> sameKey;
};

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// What decides a GEMM kernel's best tiling: where it runs, the
/// contraction's types and attributes, and the epilogue's ops and results.
std::string tuningKey(Operation *kernelOp, Operation *contraction,
                      StringRef chip, const GpuTarget &target, bool tf32) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << chip << " " << target.name << " ";
  if (cast<RankedTensorType>(contraction->getOperand(0).getType())
          .getElementType()
          .isF32())
    os << (tf32 ? "tf32 " : "fma ");
  os << contraction->getName().getStringRef() << "(";
  llvm::interleaveComma(contraction->getOperandTypes(), os,
                        [&](Type type) { os << printed(type); });
  os << ") -> " << printed(contraction->getResult(0).getType());
  // Inherent attributes only: fuse.* ones (offsets, a tiling) are the
  // compiler's notes, not the problem.
  for (NamedAttribute attr : contraction->getAttrDictionary())
    if (attr.getNameDialect() != &getFuseDialect(kernelOp->getContext())) {
      os << " " << attr.getName().strref() << "=";
      attr.getValue().print(os);
    }
  if (auto group = dyn_cast<GroupOp>(kernelOp)) {
    os << " epilogue";
    for (Operation &op : group.getBody().front())
      if (&op != contraction && !isa<YieldOp, ConstantOp>(op))
        os << " " << op.getName().stripDialect();
    os << " ->";
    for (Type type : group->getResultTypes())
      os << " " << printed(type);
  }
  return key;
}

/// "matmul 8192x11008x4096 bf16" for the progress lines.
std::string describeGemm(Operation *contraction) {
  GemmShape shape = getGemmShape(contraction);
  std::string text =
      (contraction->getName().stripDialect() + " " +
       (shape.batch > 1 ? llvm::Twine(shape.batch) + "x" : llvm::Twine("")) +
       llvm::Twine(shape.m) + "x" + llvm::Twine(shape.n) + "x" +
       llvm::Twine(shape.k) + " ")
          .str();
  return text +
         printed(cast<RankedTensorType>(contraction->getOperand(0).getType())
                     .getElementType());
}

/// The kernel ops of `func` in launch order, as convert-fuse-to-gpu
/// numbers them.
SmallVector<Operation *> kernelOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().getOps())
    if (launchesKernel(&op) && !isCollective(&op))
      ops.push_back(&op);
  return ops;
}

/// Records `tiling` as the kernel's choice.
void setTiling(Operation *op, const MatmulTiling &tiling) {
  getFuseDialect(op->getContext())
      .getMatmulTilingAttrHelper()
      .setAttr(op, MatmulTilingAttr::get(op->getContext(), tiling));
}

/// What autotuning works from: the cache, the chip, and the GEMM kernels
/// still to time.
struct Tuning {
  const DriverOptions &options;
  const CompileOptions &compile;
  const GpuTarget &target;
  std::string cachePath;
  TuningCache cache;
  std::string chip;
  std::vector<PendingKernel> pending;
};

/// Gives each GEMM kernel of `func` its cached tiling, or its only one, and
/// queues the others (once per distinct key) for timing.
int collectKernels(Tuning &tuning, func::FuncOp func) {
  for (auto [index, op] : llvm::enumerate(kernelOps(func))) {
    Operation *contraction = findContraction(op);
    if (!contraction)
      continue;
    PendingKernel kernel;
    kernel.op = op;
    kernel.kernelIndex = index;
    kernel.name = (func.getSymName() + "_k" + llvm::Twine(index)).str();
    const EmitterOptions &emitter = tuning.compile.emitter;
    kernel.key = tuningKey(op, contraction, tuning.chip, tuning.target,
                           emitter.allowTF32);
    // cp.async kernels are timed apart from the TMA ones they stand in for.
    if (!emitter.useTma)
      kernel.key += " cp.async";
    else if (!emitter.warpSpecialize)
      kernel.key += " cooperative";
    else if (emitter.pingPong)
      kernel.key += " ping-pong";
    if (!emitter.vectorStores)
      kernel.key += " pair-stores";
    kernel.label = kernel.name + " (" + describeGemm(contraction) + ")";
    auto earlier =
        llvm::find_if(tuning.pending, [&](const PendingKernel &other) {
          return other.key == kernel.key;
        });
    if (earlier != tuning.pending.end()) {
      earlier->sameKey.emplace_back(op, kernel.name);
      continue;
    }
    if (const TuningEntry *entry = tuning.cache.find(kernel.key)) {
      std::string why;
      std::optional<MatmulTiling> cached =
          resolveMatmulTiling(entry->tiling, tuning.chip, why);
      if (!cached) {
        llvm::errs() << "opt-fuse: error: --autotune: tuning cache '"
                     << tuning.cachePath << "' gives " << kernel.label << " '"
                     << entry->tiling << "': " << why << "\n";
        return ExitInvalidInput;
      }
      setTiling(op, *cached);
      llvm::errs() << "opt-fuse: autotune: " << kernel.label << ": "
                   << entry->tiling << " (cached";
      if (!entry->device.empty())
        llvm::errs() << ", measured on " << entry->device;
      llvm::errs() << ")\n";
      continue;
    }
    kernel.candidates = rankMatmulTilings(op, tuning.chip, tuning.target);
    // The only tiling there is (f32 operands) needs no timing; none:
    // convert-fuse-to-gpu reports why at the op.
    const bool onlyOne = kernel.candidates.size() == 1;
    if (kernel.candidates.size() > size_t(tuning.options.autotuneCandidates))
      kernel.candidates.resize(tuning.options.autotuneCandidates);
    if (onlyOne) {
      setTiling(op, kernel.candidates.front().tiling);
      llvm::errs() << "opt-fuse: autotune: " << kernel.label << ": "
                   << formatMatmulTiling(kernel.candidates.front().tiling)
                   << " (the only candidate)\n";
    } else if (!kernel.candidates.empty()) {
      tuning.pending.push_back(std::move(kernel));
    }
  }
  return ExitSuccess;
}

/// Times every pending kernel's candidates, one round per candidate rank,
/// on `driver`; `device` gets the GPU's name.
int timeCandidates(Tuning &tuning, ModuleOp module, cuda::Driver &driver,
                   std::string &device) {
  size_t rounds = 0;
  for (const PendingKernel &kernel : tuning.pending)
    rounds = std::max(rounds, kernel.candidates.size());
  std::vector<HostBuffer> inputs;
  for (size_t round = 0; round < rounds; ++round) {
    OwningOpRef<ModuleOp> trial = module.clone();
    SmallVector<Operation *> trialKernels =
        kernelOps(*trial->getOps<func::FuncOp>().begin());
    for (const PendingKernel &kernel : tuning.pending)
      setTiling(trialKernels[kernel.kernelIndex],
                kernel.candidates[std::min(round, kernel.candidates.size() - 1)]
                    .tiling);
    PassManager emission(module.getContext());
    buildKernelEmissionPasses(emission, tuning.compile);
    if (failed(applyMlirCommandLineOptions(emission)) ||
        failed(emission.run(*trial)))
      return ExitUnsupported;
    FailureOr<std::string> ptx = extractPtx(*trial);
    FailureOr<LaunchPlan> plan = buildLaunchPlan(*trial);
    if (failed(ptx) || failed(plan))
      return ExitUnsupported;
    if (round == 0)
      inputs = generateInputs(*plan, tuning.options.seed);
    // The round's GEMMs as the tile model sees them (the other kernels of
    // the function are usually much shorter).
    double roundSeconds = 0;
    for (const PendingKernel &kernel : tuning.pending)
      roundSeconds +=
          kernel.candidates[std::min(round, kernel.candidates.size() - 1)]
              .seconds;
    BenchOptions bench;
    // Kernels are timed alone; whole runs need no graph.
    bench.cudaGraph = false;
    bench.warmup = runsFor(kWarmupSeconds, roundSeconds);
    bench.iterations = runsFor(kTimedSeconds, roundSeconds);
    llvm::Expected<BenchResult> result =
        runPlan(driver, *ptx, *plan, inputs, bench);
    if (!result) {
      llvm::errs() << "opt-fuse: error: --autotune: "
                   << llvm::toString(result.takeError()) << "\n";
      return ExitGpuError;
    }
    device = result->device;
    for (PendingKernel &kernel : tuning.pending) {
      if (round >= kernel.candidates.size())
        continue;
      auto found = llvm::find_if(plan->kernels, [&](const PlanKernel &k) {
        return k.name == kernel.name;
      });
      if (found == plan->kernels.end()) {
        llvm::errs() << "opt-fuse: error: --autotune: the plan has no kernel "
                     << kernel.name << "\n";
        return ExitUnsupported;
      }
      kernel.measuredUs.push_back(
          result->kernels[found - plan->kernels.begin()].p50);
    }
  }
  return ExitSuccess;
}

/// Gives each timed kernel (and those of the same key) its fastest tiling
/// and records it in the cache.
void recordWinners(Tuning &tuning, const std::string &device) {
  for (PendingKernel &kernel : tuning.pending) {
    size_t best =
        std::min_element(kernel.measuredUs.begin(), kernel.measuredUs.end()) -
        kernel.measuredUs.begin();
    const MatmulTiling &fastest = kernel.candidates[best].tiling;
    TuningEntry entry;
    entry.tiling = formatMatmulTiling(fastest);
    entry.device = device;
    for (auto [candidate, us] : llvm::zip(kernel.candidates, kernel.measuredUs))
      entry.measuredUs.emplace_back(formatMatmulTiling(candidate.tiling), us);
    setTiling(kernel.op, fastest);
    llvm::errs() << llvm::formatv(
        "opt-fuse: autotune: {0}: {1} at {2:F1} us (the model's #{3} of {4}; "
        "its #1 {5} at {6:F1} us)\n",
        kernel.label, entry.tiling, kernel.measuredUs[best], best + 1,
        kernel.candidates.size(), entry.measuredUs.front().first,
        kernel.measuredUs.front());
    for (auto &[op, name] : kernel.sameKey) {
      setTiling(op, fastest);
      llvm::errs() << "opt-fuse: autotune: " << name << ": " << entry.tiling
                   << " (the same GEMM as " << kernel.name << ")\n";
    }
    tuning.cache.set(kernel.key, std::move(entry));
  }
}

} // namespace

int autotuneMatmulTilings(const DriverOptions &options, ModuleOp module,
                          const CompileOptions &compile,
                          const GpuTarget &target) {
  const std::string cachePath = options.autotuneCache.empty()
                                    ? TuningCache::defaultPath()
                                    : options.autotuneCache;
  std::string error;
  ExitCode code = ExitSuccess;
  std::optional<TuningCache> cache = TuningCache::load(cachePath, error, code);
  if (!cache) {
    llvm::errs() << "opt-fuse: error: --autotune: " << error << "\n";
    return code;
  }
  Tuning tuning{options,
                compile,
                target,
                cachePath,
                std::move(*cache),
                compile.chip.empty() ? target.chip : compile.chip,
                {}};
  auto func = *module.getOps<func::FuncOp>().begin();
  if (int status = collectKernels(tuning, func); status != ExitSuccess)
    return status;
  if (tuning.pending.empty())
    return ExitSuccess;

  llvm::Expected<std::unique_ptr<cuda::Driver>> driver = cuda::Driver::open();
  if (!driver) {
    const bool noGpu = driver.errorIsA<cuda::UnavailableError>();
    size_t kernelCount = 0;
    for (const PendingKernel &kernel : tuning.pending)
      kernelCount += 1 + kernel.sameKey.size();
    llvm::errs() << "opt-fuse: error: --autotune: " << kernelCount
                 << " GEMM kernel(s), " << tuning.pending.size()
                 << " distinct, are not in the tuning cache '" << cachePath
                 << "' and must be timed on a GPU: "
                 << llvm::toString(driver.takeError()) << "\n";
    return noGpu ? ExitNoGpu : ExitGpuError;
  }
  std::string device;
  if (int status = timeCandidates(tuning, module, **driver, device);
      status != ExitSuccess)
    return status;
  recordWinners(tuning, device);
  if (!tuning.cache.save(cachePath, error)) {
    llvm::errs() << "opt-fuse: error: --autotune: " << error << "\n";
    return ExitIO;
  }
  return ExitSuccess;
}

} // namespace opfuse
