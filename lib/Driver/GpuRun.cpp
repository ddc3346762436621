//===- GpuRun.cpp - --bench and --check of opt-fuse -----------------------===//
//
// The same seeded inputs go to the GPU and to the reference interpreter on
// the fused model at kernel precision (f32 inside each kernel, rounded
// where it stores); each output is compared against per-dtype tolerances
// (docs/numerics.md): a bound on each element's error relative to its
// scale and one on the relative L2 error of the whole output; NaN must
// match NaN.
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"

#include "CheckTolerance.h"
#include "GpuReference.h"
#include "ReferenceCost.h"
#include "Sharding.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Pipeline/Pipeline.h"
#include "opfuse/Runtime/Calibrate.h"
#include "opfuse/Runtime/Cublas.h"
#include "opfuse/Runtime/NamedIo.h"
#include "opfuse/Runtime/Nccl.h"
#include "opfuse/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"

#include <cmath>

using namespace mlir;

namespace opfuse {

std::function<void(int64_t, int64_t)>
ReferenceRun::progress(StringRef phase) const {
  return showProgress ? referenceProgressLine("--check", phase) : nullptr;
}

namespace {

/// How far apart a strict kernel's f16 or bf16 output and the model as
/// written may be, in units in the last place at the element's scale.
constexpr double kStrictUlps = 2;

} // namespace

std::optional<std::vector<OutputCheck>>
checkOutputs(func::FuncOp func, func::FuncOp fused,
             const std::vector<HostBuffer> &inputs,
             const std::vector<HostBuffer> &outputs, bool tf32, bool strict,
             const ReferenceRun &run) {
  // Sums accumulate in f64: the reference is what the kernels mean, not one
  // more f32 evaluation order to agree with. Each kernel keeps its f16/bf16
  // intermediates in f32 and rounds what it stores, as the GPU does: the
  // model as written rounds after every op, and through exp and long sums
  // those extra roundings alone move a bf16 block's outputs by percents.
  // With --numerics=strict the kernels do round after every op, and so
  // does their reference: the model as written.
  reference::Options kernels;
  kernels.f64Accumulation = true;
  kernels.kernelPrecision = !strict;
  kernels.offload = run.offload;
  kernels.progress = run.progress("reference");
  SmallVector<reference::Tensor> arguments = toReferenceTensors(func, inputs);
  FailureOr<SmallVector<reference::Tensor>> kernelResults =
      reference::interpret(fused, arguments, kernels);
  if (failed(kernelResults))
    return std::nullopt;
  // How far rounding alone can move each element (CheckTolerance.h), from
  // the model as written.
  reference::Options scaleRun;
  scaleRun.offload = run.offload;
  scaleRun.progress = run.progress("error scales");
  FailureOr<SmallVector<OutputErrorScale>> scales =
      computeErrorScales(func, arguments, scaleRun);
  if (failed(scales))
    return std::nullopt;
  return compareOutputs(func, *kernelResults, *scales, outputs, tf32, strict);
}

std::vector<OutputCheck>
compareOutputs(func::FuncOp func, ArrayRef<reference::Tensor> kernelResults,
               ArrayRef<OutputErrorScale> scales,
               const std::vector<HostBuffer> &outputs, bool tf32, bool strict) {
  std::vector<OutputCheck> checks;
  for (auto [index, output] : llvm::enumerate(outputs)) {
    const reference::Tensor &ref = kernelResults[index];
    Type precision = computedPrecision(func, index);
    std::optional<DType> through;
    const bool viaTF32 = tf32 && throughF32Contraction(func, index);
    const bool isFloat = output.dtype == DType::F32 ||
                         output.dtype == DType::F16 ||
                         output.dtype == DType::BF16;
    if (!isFloat)
      ;
    else if (precision.isBF16())
      through = DType::BF16;
    else if (precision.isF16() && output.dtype == DType::F32)
      through = DType::F16;
    Tolerance tol = toleranceFor(through ? *through : output.dtype);
    std::string dtype = dtypeName(output.dtype).str();
    if (through && *through != output.dtype)
      dtype += " via " + dtypeName(*through).str();
    else if (viaTF32 && output.dtype == DType::F32) {
      // TF32 keeps 10 mantissa bits: products are off by up to 2^-10 of
      // their magnitude, which the scale (|A| @ |B|) measures.
      tol = {2e-3, 2e-3};
      dtype += " via tf32";
    }
    // An element is measured against max(|ref|, 1, E); the relative L2
    // against the norm of max(|ref|, E): a value that is zero up to
    // cancellation is judged by the magnitude of what cancelled. Where E
    // is not finite (an operand at a pole: log 0, 1/0) any finite
    // difference is rounding; NaN and infinities must still agree.
    const std::optional<std::vector<double>> &scale = scales[index].scale;
    // Where a comparison upstream is undecided (its operands within their
    // rounding of each other), the element may differ by T besides: the
    // other branch of a select. A T that is not finite (a branch is NaN or
    // infinite) leaves the element unjudged.
    const std::optional<std::vector<double>> &tie = scales[index].tie;
    int64_t tieElements = 0;
    // Strict mode rounds every op as the model does: a narrow result may
    // differ only where an f32 difference underneath (a libdevice
    // function, a sum's order) crosses a rounding boundary.
    const std::optional<DType> ulpsOf =
        strict && isFloat &&
                (through || output.dtype == DType::F16 ||
                 output.dtype == DType::BF16)
            ? std::optional<DType>(through ? *through : output.dtype)
            : std::nullopt;
    double maxAbs = 0, maxMixed = 0, maxUlps = 0, diffSquares = 0,
           refSquares = 0;
    int64_t worst = -1;
    bool nanMismatch = false;
    for (int64_t i = 0; i < output.elements(); ++i) {
      double got = output.get(i), want = ref.data[i];
      const double allowance = tie ? (*tie)[i] : 0.0;
      if (!std::isfinite(allowance)) {
        tieElements += got != want;
        continue;
      }
      if (allowance > 0 && got != want) {
        ++tieElements;
        if (std::fabs(got - want) <= allowance)
          got = want;
        else
          got += got > want ? -allowance : allowance;
      }
      if (std::isnan(got) || std::isnan(want)) {
        nanMismatch |= std::isnan(got) != std::isnan(want);
        continue;
      }
      const double e = scale ? (*scale)[i] : 0.0;
      const bool bounded = !std::isnan(e) && !std::isinf(e);
      const double norm = bounded ? std::max(std::fabs(want), e) : 0.0;
      if (got == want) {
        refSquares += norm * norm;
        continue;
      }
      double abs = std::fabs(got - want);
      if (std::isinf(got) || std::isinf(want))
        abs = INFINITY;
      if (!bounded && !std::isinf(abs))
        continue;
      double mixed = abs / std::max(norm, 1.0);
      if (ulpsOf)
        maxUlps = std::max(maxUlps, abs / unitInLastPlace(*ulpsOf, norm));
      if (mixed > maxMixed || worst < 0) {
        maxMixed = std::max(maxMixed, mixed);
        worst = i;
      }
      maxAbs = std::max(maxAbs, abs);
      diffSquares += abs * abs;
      refSquares += norm * norm;
    }
    const double l2 = refSquares > 0 ? std::sqrt(diffSquares / refSquares)
                                     : (diffSquares > 0 ? INFINITY : 0.0);
    OutputCheck check;
    check.index = index;
    check.dtype = dtype;
    check.elements = output.elements();
    check.maxAbs = maxAbs;
    check.maxScaled = maxMixed;
    check.elementTolerance = tol.element;
    check.relativeL2 = l2;
    check.l2Tolerance = tol.l2;
    check.nanMismatch = nanMismatch;
    check.tieElements = tieElements;
    check.pass = !nanMismatch && maxMixed <= tol.element && l2 <= tol.l2;
    if (ulpsOf) {
      check.maxUlps = maxUlps;
      check.ulpTolerance = kStrictUlps;
      check.pass &= maxUlps <= kStrictUlps;
    }
    if (worst >= 0) {
      check.worst = worst;
      check.got = output.get(worst);
      check.expected = ref.data[worst];
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

void recordMeasurement(const BenchResult &result, MeasuredRun &measured) {
  measured.device = result.device;
  measured.total = {result.total.p50, result.total.p99};
  measured.stream = {result.stream.p50, result.stream.p99};
  if (result.graph)
    measured.graph = KernelMeasurement{result.graph->p50, result.graph->p99};
  if (result.serial)
    measured.serial = KernelMeasurement{result.serial->p50, result.serial->p99};
  measured.allocatedBytes = result.bytesAllocated;
  for (const LatencyStats &kernel : result.kernels)
    measured.kernels.push_back({kernel.p50, kernel.p99});
}

SmallVector<reference::Tensor>
toReferenceTensors(func::FuncOp func, const std::vector<HostBuffer> &buffers) {
  SmallVector<reference::Tensor> tensors;
  for (auto [type, buffer] : llvm::zip(func.getArgumentTypes(), buffers)) {
    reference::Tensor tensor;
    tensor.elementType = cast<RankedTensorType>(type).getElementType();
    tensor.shape.assign(buffer.shape.begin(), buffer.shape.end());
    tensor.data.resize(buffer.elements());
    for (int64_t i = 0; i < buffer.elements(); ++i)
      tensor.data[i] = buffer.get(i);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

namespace {
/// The CUDA driver, opened once per process and kept: creating a context
/// costs a third of a second, which --each-function pays once for all its
/// functions. On failure prints why and sets the exit code (and tries
/// again next time).
cuda::Driver *openDriver(int &exitCode) {
  static std::unique_ptr<cuda::Driver> shared;
  if (shared)
    return shared.get();
  llvm::Expected<std::unique_ptr<cuda::Driver>> driver = cuda::Driver::open();
  if (driver) {
    shared = std::move(*driver);
    return shared.get();
  }
  exitCode =
      driver.errorIsA<cuda::UnavailableError>() ? ExitNoGpu : ExitGpuError;
  llvm::errs() << "opt-fuse: error: " << llvm::toString(driver.takeError())
               << "\n";
  return nullptr;
}

/// The GPU's DGEMM for the reference's large matmuls when the model has
/// any, --check-matmuls allows it and cuBLAS opens (null otherwise: small
/// models do not pay for loading it); says up front how long the
/// reference will take when that is long. With --check-matmuls=gpu a
/// cuBLAS that does not open is an error (`noCublasError`).
std::unique_ptr<GpuMatmulOffload> openGpuReference(cuda::Driver &driver,
                                                   const DriverOptions &options,
                                                   func::FuncOp model,
                                                   func::FuncOp kernels,
                                                   bool &noCublasError) {
  // The kernels' reference, then the model again with its error scales
  // (about three ops per op, and a contraction of magnitudes per
  // contraction at most).
  ReferenceWork work = referenceWork(kernels);
  work += referenceWork(model).scaled(2);
  std::unique_ptr<GpuMatmulOffload> offload;
  std::string noCublas;
  noCublasError = false;
  if (work.offloadableMultiplyAdds > 0 && options.checkMatmuls != "host") {
    llvm::Expected<std::unique_ptr<cuda::Cublas>> cublas =
        cuda::Cublas::open(resolveCudaToolkit(options.compile.cudaToolkit));
    if (cublas)
      offload = std::make_unique<GpuMatmulOffload>(driver, std::move(*cublas));
    else
      noCublas = llvm::toString(cublas.takeError());
    if (!cublas && options.checkMatmuls == "gpu") {
      llvm::errs() << "opt-fuse: error: --check-matmuls=gpu: " << noCublas
                   << "\n";
      noCublasError = true;
      return nullptr;
    }
  }
  const unsigned threads = llvm::hardware_concurrency().compute_thread_count();
  std::string cost = describeReferenceCost(work, offload != nullptr, threads);
  if (!cost.empty()) {
    llvm::errs() << "opt-fuse: note: --check's reference will take " << cost
                 << "\n";
    if (!noCublas.empty())
      llvm::errs() << "opt-fuse: note: its matmuls run on the host: "
                   << noCublas << "\n";
  }
  return offload;
}

/// --inputs NAME=FILE.npy: replaces the seeded values of the inputs named.
/// Names are the plan's (an imported model's, else argN and resultN), as
/// opfuse-run reads them.
int loadInputFiles(const DriverOptions &options, const LaunchPlan &plan,
                   std::vector<HostBuffer> &inputs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    names.push_back(plan.inputName(i));
  NamedIoResult result =
      opfuse::loadInputFiles(options.inputFiles, names, inputs);
  if (result)
    llvm::errs() << "opt-fuse: error: " << result.message << "\n";
  return result.exitCode();
}

/// --save-outputs DIR: each output of the run as DIR/NAME.npy.
int saveOutputs(const DriverOptions &options, const LaunchPlan &plan,
                const std::vector<HostBuffer> &outputs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    names.push_back(plan.outputName(i));
  NamedIoResult result =
      saveOutputFiles(options.saveOutputsDir, names, outputs);
  if (result)
    llvm::errs() << "opt-fuse: error: " << result.message << "\n";
  return result.exitCode();
}

} // namespace

int runCalibration(const DriverOptions &options, const GpuTarget &base) {
  int exitCode = ExitSuccess;
  cuda::Driver *driver = openDriver(exitCode);
  if (!driver)
    return exitCode;
  CalibrateOptions calibration;
  llvm::Expected<GpuTarget> measured =
      calibrate(*driver, base, calibration, llvm::errs());
  if (!measured) {
    llvm::errs() << "opt-fuse: error: calibration failed: "
                 << llvm::toString(measured.takeError()) << "\n";
    return ExitGpuError;
  }
  if (options.devices >= 2) {
    // The links, through NCCL as plans run collectives: at full width
    // (the link bandwidth of the target), then held to the CTAs
    // --overlap-sms leaves a collective beside the kernels (logged, to
    // choose that setting by; NCCL_MAX_CTAS then stays set, so second).
    constexpr int64_t kLinkBytes = int64_t(256) << 20;
    for (int ctas : {0, static_cast<int>(options.compile.overlapSms)}) {
      llvm::Expected<LinkMeasurement> link =
          measureLinkBandwidth(*driver, options.devices, kLinkBytes, ctas,
                               options.ncclPath, calibration, llvm::errs());
      if (!link) {
        llvm::Error error = link.takeError();
        const bool unavailable = error.isA<CollectivesUnavailableError>();
        llvm::errs() << "opt-fuse: error: link calibration failed: "
                     << llvm::toString(std::move(error)) << "\n";
        return unavailable ? ExitNoCollectives : ExitGpuError;
      }
      if (ctas == 0) {
        measured->linkBandwidth = link->busBandwidth;
        // "... (link bandwidth from h200)" no longer holds.
        std::string &source = measured->source;
        source =
            source.substr(0, source.find(" (link bandwidth from")) +
            llvm::formatv(" (links: {0} GPUs through NCCL)", options.devices)
                .str();
      }
    }
  }
  return writeOutput(
      options, [&](llvm::raw_ostream &os) { writeTargetJson(*measured, os); });
}

int runOnGpu(const DriverOptions &options, ModuleOp original, ModuleOp fused,
             const std::string &ptx, const LaunchPlan &plan,
             MeasuredRun *measured) {
  // The user's files first: their errors need no GPU to be reported.
  std::vector<HostBuffer> inputs = generateInputs(plan, options.seed);
  func::FuncOp model = *original.getOps<func::FuncOp>().begin();
  if (int code = loadInputFiles(options, plan, inputs); code != ExitSuccess)
    return code;
  // --devices: every collective must span the run's devices.
  if (options.devices && failed(checkCollectivesSpan(model, options.devices)))
    return ExitUsage;
  int exitCode = ExitSuccess;
  cuda::Driver *driver = openDriver(exitCode);
  if (!driver)
    return exitCode;
  if (options.devices)
    return runSpmdOnGpu(options, model, *fused.getOps<func::FuncOp>().begin(),
                        ptx, plan, *driver, measured);
  BenchOptions bench;
  bench.warmup = options.warmup;
  bench.iterations = options.bench ? options.iterations : 0;
  bench.progress =
      options.bench && llvm::sys::Process::StandardErrIsDisplayed();
  bench.cudaGraph = options.cudaGraph;
  bench.ncclPath = options.ncclPath;
  llvm::Expected<BenchResult> result =
      runPlan(*driver, ptx, plan, inputs, bench);
  if (!result)
    return reportRunError("opt-fuse", result.takeError());
  std::optional<std::vector<OutputCheck>> checks;
  if (options.check) {
    func::FuncOp kernels = *fused.getOps<func::FuncOp>().begin();
    bool noCublas = false;
    std::unique_ptr<GpuMatmulOffload> offload =
        openGpuReference(*driver, options, model, kernels, noCublas);
    if (noCublas)
      return ExitGpuError;
    ReferenceRun run;
    run.offload = offload.get();
    run.showProgress = llvm::sys::Process::StandardErrIsDisplayed();
    checks = checkOutputs(model, kernels, inputs, result->outputs,
                          options.compile.emitter.allowTF32,
                          options.compile.emitter.strictNumerics(), run);
    if (offload && !offload->firstFailure.empty()) {
      // Only what the user asked for: gpu means no host fallback.
      if (options.checkMatmuls == "gpu") {
        llvm::errs() << "opt-fuse: error: --check-matmuls=gpu: "
                     << offload->firstFailure << "\n";
        return ExitGpuError;
      }
      llvm::errs() << "opt-fuse: note: a reference matmul fell back to the "
                      "host: "
                   << offload->firstFailure << "\n";
    }
    if (offload && offload->offloaded > 0)
      llvm::errs() << "opt-fuse: note: --check computed " << offload->offloaded
                   << " reference matmul(s) with f64 sums on the GPU ("
                   << offload->library() << ")\n";
    if (!checks)
      return ExitCheckFailed;
  }
  if (measured) {
    // The report shows them (opt-fuse's compileModel).
    if (options.bench)
      recordMeasurement(*result, *measured);
    measured->checks = checks;
  } else if (options.json) {
    // One document on stdout: the measurement and the check together.
    llvm::json::Object root =
        options.bench ? benchToJson(plan, *result)
                      : llvm::json::Object{{"device", result->device},
                                           {"function", plan.function}};
    if (checks)
      root["check"] = outputChecksToJson(*checks);
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
  } else {
    if (options.bench)
      printBench(llvm::outs(), plan, *result);
    if (checks)
      printOutputChecks(llvm::outs(), *checks);
  }
  if (int code = saveOutputs(options, plan, result->outputs);
      code != ExitSuccess)
    return code;
  if (checks &&
      llvm::any_of(*checks, [](const OutputCheck &c) { return !c.pass; }))
    return ExitCheckFailed;
  return ExitSuccess;
}

} // namespace opfuse
