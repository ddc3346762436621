//===- Driver.cpp - What opt-fuse does with its options -------------------===//
//
// Loads the model, compiles it with the library pipeline when the request
// needs kernels, writes the requested output, runs --bench/--check, and
// maps every failure to its exit code.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"
#include "opfuse/Support/PassStatistics.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "Autotune.h"
#include "GpuRun.h"
#include "Output.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Analysis/InputRanges.h"
#include "opfuse/InitAll.h"
#include "opfuse/Pipeline/Pipeline.h"
#include "opfuse/Report/Report.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Remark/RemarkStreamer.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace opfuse {

std::optional<EmitKind> parseEmitKind(llvm::StringRef value) {
  return llvm::StringSwitch<std::optional<EmitKind>>(value)
      .Case("mlir", EmitKind::Mlir)
      .Case("fused", EmitKind::Fused)
      .Case("ptx", EmitKind::Ptx)
      .Case("plan", EmitKind::Plan)
      .Case("summary", EmitKind::Summary)
      .Case("report", EmitKind::Report)
      .Case("report-json", EmitKind::ReportJson)
      .Case("roofline", EmitKind::Roofline)
      .Case("memory", EmitKind::Memory)
      .Case("dot", EmitKind::Dot)
      .Case("graph", EmitKind::Graph)
      .Default(std::nullopt);
}

const char *listEmitKinds() {
  return "mlir, fused, ptx, plan, summary, report, report-json, roofline, "
         "memory, dot, graph";
}

int writeOutput(const DriverOptions &options,
                llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(options.outputPath, &error);
  if (!output) {
    llvm::errs() << "opt-fuse: error: " << error << "\n";
    return ExitIO;
  }
  write(output->os());
  output->os().flush();
  if (std::error_code ec = output->os().error()) {
    output->os().clear_error();
    llvm::errs() << "opt-fuse: error: cannot write '" << options.outputPath
                 << "': " << ec.message() << "\n";
    return ExitIO;
  }
  output->keep();
  return ExitSuccess;
}

namespace {
void writeSummary(llvm::raw_ostream &os, const GraphAnalysis &before,
                  const LaunchPlan &plan, const std::string &ptx) {
  int64_t after = 0;
  for (const PlanKernel &kernel : plan.kernels)
    after += kernel.bytes;
  os << llvm::formatv("function @{0}\n", plan.function);
  os << llvm::formatv("kernels: {0} unfused -> {1} fused\n",
                      before.kernels.size(), plan.kernels.size());
  os << llvm::formatv("device-memory bytes: {0} unfused -> {1} fused "
                      "({2:F2}x fewer)\n",
                      before.bytes(), after,
                      after ? double(before.bytes()) / after : 0.0);
  for (const PlanKernel &kernel : plan.kernels) {
    os << llvm::formatv("  {0}: {1} ops, grid {2} x block {3}, {4} bytes, "
                        "{5} FLOPs",
                        kernel.name, kernel.numOps, kernel.grid[0],
                        kernel.block[0], kernel.bytes, kernel.flops);
    if (!kernel.tiling.empty())
      os << ", tiling " << kernel.tiling;
    if (!kernel.schedule.empty())
      os << " (" << kernel.schedule << ")";
    os << "\n";
  }
  if (plan.arena.bytes > 0 || plan.arena.lowerBound > 0)
    os << llvm::formatv("arena: {0} bytes, lower bound {1}, {2} with one "
                        "allocation per buffer, {3} written in place\n",
                        plan.arena.bytes, plan.arena.lowerBound,
                        plan.arena.naiveBytes, plan.arena.inPlace);
  os << llvm::formatv("PTX: {0} bytes\n", ptx.size());
}
/// Keeps only the function to compile: `name`, or the only one.
LogicalResult selectFunction(ModuleOp module, llvm::StringRef name) {
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  func::FuncOp chosen =
      functions.size() == 1 && name.empty() ? functions[0] : nullptr;
  for (func::FuncOp func : functions)
    if (func.getSymName() == name)
      chosen = func;
  if (!chosen) {
    std::string names;
    for (func::FuncOp func : functions)
      names += (names.empty() ? "@" : ", @") + func.getSymName().str();
    if (name.empty())
      llvm::errs() << "opt-fuse: error: the model holds " << functions.size()
                   << " functions (" << names
                   << "); choose the one to compile with --function\n";
    else
      llvm::errs() << "opt-fuse: error: no function @" << name
                   << " in the model (it holds " << names << ")\n";
    return failure();
  }
  for (func::FuncOp func : functions)
    if (func != chosen)
      func.erase();
  return success();
}

/// The function left after selectFunction.
func::FuncOp onlyFunction(ModuleOp module) {
  return *module.getOps<func::FuncOp>().begin();
}

bool isReport(std::optional<EmitKind> emit) {
  return emit == EmitKind::Report || emit == EmitKind::ReportJson ||
         emit == EmitKind::Roofline || emit == EmitKind::Memory;
}

int writeReport(const DriverOptions &options, EmitKind emit,
                const Report &report) {
  return writeOutput(options, [&](llvm::raw_ostream &os) {
    if (emit == EmitKind::Report)
      writeReportText(report, os);
    else if (emit == EmitKind::ReportJson)
      writeReportJson(report, os);
    else if (emit == EmitKind::Memory)
      writeMemorySvg(report, os);
    else
      writeRooflineSvg(report, os);
  });
}

/// Loads --target; the error's kind picks the exit code.
std::optional<GpuTarget> loadTargetOrReport(const DriverOptions &options,
                                            int &exitCode) {
  llvm::Expected<GpuTarget> target = loadTarget(options.compile.target);
  if (target)
    return *target;
  exitCode = ExitInvalidInput;
  llvm::handleAllErrors(target.takeError(), [&](const TargetError &error) {
    exitCode = error.kind == TargetError::Kind::UnknownName  ? ExitUsage
               : error.kind == TargetError::Kind::Unreadable ? ExitIO
                                                             : ExitInvalidInput;
    llvm::errs() << "opt-fuse: error: --target: " << error.message << "\n";
  });
  return std::nullopt;
}

/// The option values the passes would refuse, checked before any work so
/// that they are usage errors (exit 2) with the option's name.
int checkOptions(const DriverOptions &options, const GpuTarget &target) {
  const CompileOptions &compile = options.compile;
  if (std::optional<std::string> error = checkCompileOptions(compile)) {
    llvm::errs() << "opt-fuse: error: "
                 << (llvm::StringRef(*error).starts_with("--") ? "" : "--")
                 << *error << "\n";
    return ExitUsage;
  }
  if (std::optional<std::string> error = checkPassHooks(compile)) {
    llvm::errs() << "opt-fuse: error: " << *error << "\n";
    return ExitUsage;
  }
  // The default SM count only matters where a chunk count is forced: in
  // auto mode a target that cannot spare it keeps its layers whole.
  const bool chunksForced = compile.overlapCollectives != "auto" &&
                            compile.overlapCollectives != "off";
  if ((compile.overlapSmsGiven || chunksForced) &&
      compile.overlapCollectives != "off" &&
      compile.overlapSms >= target.smCount) {
    llvm::errs() << "opt-fuse: error: --overlap-sms=" << compile.overlapSms
                 << " leaves no SM of " << target.name << "'s "
                 << target.smCount << " to the GEMMs beside the collectives\n";
    return ExitUsage;
  }
  std::string tilingError;
  const std::string chip = compile.chip.empty() ? target.chip : compile.chip;
  if (!resolveMatmulTiling(compile.emitter.matmulTiling, chip, tilingError)) {
    llvm::errs() << "opt-fuse: error: --matmul-tiling: " << tilingError << "\n";
    return ExitUsage;
  }
  if (llvm::StringRef(compile.emitter.attentionTiling).starts_with("wgmma:") &&
      chip != "sm_90" && chip != "sm_90a") {
    llvm::errs() << "opt-fuse: error: --attention-tiling: wgmma needs sm_90 "
                    "(the kernels are compiled for "
                 << chip << ")\n";
    return ExitUsage;
  }
  if (options.autotune && compile.emitter.matmulTiling != "auto") {
    llvm::errs() << "opt-fuse: error: --autotune chooses each GEMM's tiling; "
                    "it cannot be combined with --matmul-tiling="
                 << compile.emitter.matmulTiling << "\n";
    return ExitUsage;
  }
  if (options.eachFunction && !(options.check || options.bench ||
                                options.checkFusion || options.checkOnHost)) {
    llvm::errs() << "opt-fuse: error: --each-function runs functions: it "
                    "needs --check, --check-on-host, --bench or "
                    "--check-fusion\n";
    return ExitUsage;
  }
  if (options.checkOnHost &&
      (options.check || options.bench || options.autotune ||
       (options.emit && *options.emit != EmitKind::Fused))) {
    llvm::errs() << "opt-fuse: error: --check-on-host runs the kernels on "
                    "the host: it cannot be combined with --check, --bench, "
                    "--autotune or an --emit other than fused\n";
    return ExitUsage;
  }
  if (options.eachFunction && (options.emit || !options.function.empty())) {
    llvm::errs() << "opt-fuse: error: --each-function cannot be combined "
                    "with --emit or --function\n";
    return ExitUsage;
  }
  if (options.devices &&
      !(options.check || options.bench || options.checkFusion ||
        options.checkOnHost || options.calibrate)) {
    llvm::errs() << "opt-fuse: error: --devices runs the function on "
                    "several devices: it needs --check, --check-on-host, "
                    "--bench or --check-fusion (or --calibrate, to measure "
                    "the links)\n";
    return ExitUsage;
  }
  if (options.calibrate && options.devices == 1) {
    llvm::errs() << "opt-fuse: error: --calibrate --devices=N measures the "
                    "links between N GPUs: N must be 2 or more\n";
    return ExitUsage;
  }
  if (options.devices &&
      (!options.inputFiles.empty() || !options.saveOutputsDir.empty())) {
    llvm::errs() << "opt-fuse: error: --inputs and --save-outputs take one "
                    "device's tensors: they cannot be combined with "
                    "--devices\n";
    return ExitUsage;
  }
  if ((!options.inputFiles.empty() || !options.saveOutputsDir.empty()) &&
      !options.bench && !options.check && !options.checkOnHost) {
    llvm::errs() << "opt-fuse: error: --inputs and --save-outputs apply to "
                    "a run: add --check, --bench or --check-on-host\n";
    return ExitUsage;
  }
  if (options.importFormat != "auto" && options.importFormat != "mlir" &&
      options.importFormat != "onnx") {
    llvm::errs() << "opt-fuse: error: --import must be auto, mlir or onnx, "
                    "not '"
                 << options.importFormat << "'\n";
    return ExitUsage;
  }
  if (options.checkMatmuls != "auto" && options.checkMatmuls != "gpu" &&
      options.checkMatmuls != "host") {
    llvm::errs() << "opt-fuse: error: --check-matmuls must be auto, gpu or "
                    "host, not '"
                 << options.checkMatmuls << "'\n";
    return ExitUsage;
  }
  return ExitSuccess;
}

/// What a compile produced: the kernels, their launch plan and the cost
/// model's view before and after fusion.
struct Compiled {
  std::string ptx;
  LaunchPlan plan;
};

/// Writes --emit=ptx, plan or summary from `compiled`.
int writeCompiled(const DriverOptions &options, std::optional<EmitKind> emit,
                  const Compiled &compiled, const Report &report) {
  if (emit == EmitKind::Ptx)
    return writeOutput(options,
                       [&](llvm::raw_ostream &os) { os << compiled.ptx; });
  if (emit == EmitKind::Plan)
    return writeOutput(options, [&](llvm::raw_ostream &os) {
      writePlanJson(compiled.plan, os);
    });
  if (emit == EmitKind::Summary)
    return writeOutput(options, [&](llvm::raw_ostream &os) {
      writeSummary(os, report.before, compiled.plan, compiled.ptx);
    });
  return ExitSuccess;
}

/// Runs the pipeline up to --compile-to's stage and writes the module there.
int compileToStage(const DriverOptions &options, ModuleOp module,
                   llvm::function_ref<int()> writeModule) {
  CompileOptions compile = options.compile;
  compile.stopAfter = options.compileTo;
  compile.binary = *options.compileTo != CompileStage::Gpu;
  PassManager fusion(module.getContext());
  buildFusionPasses(fusion, compile);
  if (failed(applyMlirCommandLineOptions(fusion)) || failed(fusion.run(module)))
    return ExitUnsupported;
  if (*options.compileTo >= CompileStage::Gpu) {
    PassManager emission(module.getContext());
    buildKernelEmissionPasses(emission, compile);
    if (failed(applyMlirCommandLineOptions(emission)) ||
        failed(emission.run(module)))
      return ExitUnsupported;
  }
  return writeModule();
}

/// Compiles the selected function of `module` and does what `options` ask
/// with it: an output, a run on the GPU, or both.
int compileModel(const DriverOptions &options, std::optional<EmitKind> emit,
                 ModuleOp module, const GpuTarget &target,
                 llvm::function_ref<int()> writeModule) {
  MLIRContext *context = module.getContext();
  const bool run = options.bench || options.check;
  OwningOpRef<ModuleOp> original = module.clone();
  // The unfused graph as --no-fuse runs it: composites as their primitives.
  OwningOpRef<ModuleOp> unfused = module.clone();
  PassManager decompose(context);
  buildDecomposePasses(decompose);
  if (failed(applyMlirCommandLineOptions(decompose)) ||
      failed(decompose.run(*unfused)))
    return ExitUnsupported;
  CompileOptions compile = options.compile;
  // The host interpreter reads the kernels as emitted, not their PTX.
  compile.binary = (emit != EmitKind::Fused || run) && !options.checkOnHost;

  // Fusion, then the cost model's view of the kernels it formed: the report
  // needs no GPU emitter, so it covers every op.
  // The graph pictures draw fusion's refusals: its explain remarks are
  // collected (and shown only when --fuse-explain asked for them).
  const bool picture = emit == EmitKind::Dot || emit == EmitKind::Graph;
  FusionRefusals refusals;
  if (picture)
    compile.explain = true;
  PassManager fusion(context);
  buildFusionPasses(fusion, compile);
  {
    std::optional<ScopedDiagnosticHandler> collect;
    if (picture)
      collect.emplace(context, [&](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() != DiagnosticSeverity::Remark)
          return failure();
        std::string text = diagnostic.str();
        llvm::StringRef message(text);
        if (message.consume_front("fuse-elementwise: not fused"))
          refusals.try_emplace(diagnostic.getLocation(),
                               "not fused" + message.str());
        return success(!options.compile.explain);
      });
    if (failed(applyMlirCommandLineOptions(fusion)) ||
        failed(fusion.run(module)))
      return ExitUnsupported;
  }
  if (options.testInternalError) {
    module.emitError("internal error: raised by --test-internal-error after "
                     "the fusion passes");
    return ExitUnsupported;
  }
  // --check interprets the kernels as formed here; emission rewrites them.
  OwningOpRef<ModuleOp> fused =
      options.check || options.checkOnHost ? module.clone() : nullptr;
  CostModel model(target);
  model.setAttentionTma(compile.emitter.useTma);
  model.setGemmTilingOf([&](Operation *kernel) {
    return expectedGemmTiling(kernel, compile.emitter.matmulTiling, target);
  });
  model.setWindowRowsOf([&](Operation *kernel) -> int64_t {
    auto group = dyn_cast<fuse::GroupOp>(kernel);
    return group ? expectedWindowRows(group, compile.emitter) : 1;
  });
  Report report{target, analyzeFunction(onlyFunction(*unfused), model),
                analyzeFunction(onlyFunction(module), model), std::nullopt,
                buildMemoryReport(onlyFunction(module))};
  report.allowTF32 = compile.emitter.allowTF32;
  if (isReport(emit) && !run)
    return writeReport(options, *emit, report);
  if (emit == EmitKind::Dot || emit == EmitKind::Graph) {
    // The picture of the kernels as fused; a run (--bench, --check) still
    // follows when asked for.
    int code = writeGraph(options, *emit, onlyFunction(module), report.after,
                          refusals);
    if (code != ExitSuccess || !run)
      return code;
  }

  if (options.autotune) {
    int code = autotuneMatmulTilings(options, module, compile, target);
    if (code != ExitSuccess)
      return code;
  }
  PassManager emission(context);
  buildKernelEmissionPasses(emission, compile);
  if (failed(applyMlirCommandLineOptions(emission)) ||
      failed(emission.run(module)))
    return ExitUnsupported;

  if (emit == EmitKind::Fused) {
    int code = writeModule();
    if (code != ExitSuccess || !(run || options.checkOnHost))
      return code;
  }
  if (options.checkOnHost)
    return checkOnHost(options, *original, fused.get(), module);
  FailureOr<std::string> ptx = extractPtx(module);
  FailureOr<LaunchPlan> plan = buildLaunchPlan(module);
  if (failed(ptx) || failed(plan))
    return ExitUnsupported;
  // Weights are drawn at the scale models are initialised with.
  for (auto [id, range] :
       llvm::zip(plan->inputs, seededInputRanges(onlyFunction(*original))))
    plan->buffers[id].seedRange = range;
  // The plan's kernels are the analysed ones that are not collectives, in
  // the same order and names.
  auto analysed = llvm::make_filter_range(
      report.after.kernels,
      [](const KernelAnalysis &kernel) { return !kernel.collective; });
  for (auto [kernel, prediction] : llvm::zip(plan->kernels, analysed))
    if (kernel.name == prediction.name)
      kernel.predictedUs = prediction.prediction.seconds() * 1e6;
  Compiled compiled{std::move(*ptx), std::move(*plan)};

  int code = writeCompiled(options, emit, compiled, report);
  if (code != ExitSuccess || !run)
    return code;
  if (!isReport(emit))
    return runOnGpu(options, *original, fused.get(), compiled.ptx,
                    compiled.plan, nullptr);
  report.measured.emplace();
  code = runOnGpu(options, *original, fused.get(), compiled.ptx, compiled.plan,
                  &*report.measured);
  if (code != ExitSuccess && code != ExitCheckFailed)
    return code;
  // The JSON report holds the check; the others leave it to its lines.
  if (*emit != EmitKind::ReportJson && report.measured->checks)
    printOutputChecks(llvm::outs(), *report.measured->checks);
  int written = writeReport(options, *emit, report);
  return written != ExitSuccess ? written : code;
}
} // namespace

/// --each-function: the whole driver once per function of `module`, which
/// parses again each time (cheap next to a compile); the CUDA context
/// stays open between them (GpuRun's shared driver).
static int runEachFunction(const DriverOptions &options, ModuleOp module) {
  SmallVector<std::string> names;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    names.push_back(func.getSymName().str());
  int first = ExitSuccess;
  for (const std::string &name : names) {
    DriverOptions one = options;
    one.eachFunction = false;
    one.function = name;
    const int code = runDriver(one);
    llvm::outs().flush();
    llvm::errs().flush();
    llvm::outs() << "opt-fuse: @" << name << ": exit " << code << "\n";
    llvm::outs().flush();
    if (first == ExitSuccess)
      first = code;
  }
  return first;
}

int runDriver(const DriverOptions &options) {
  if (int code = loadPassPlugins(options.passPlugins); code != ExitSuccess)
    return code;
  // After MLIR's own tables, which a release LLVM leaves empty.
  struct PrintStatistics {
    ~PrintStatistics() {
      if (passStatisticsRequested())
        printPassStatistics(llvm::errs());
      clearPassStatistics();
    }
  } printStatistics;
  int targetError = ExitSuccess;
  std::optional<GpuTarget> target = loadTargetOrReport(options, targetError);
  if (!target)
    return targetError;
  if (int code = checkOptions(options, *target); code != ExitSuccess)
    return code;
  if (options.calibrate)
    return runCalibration(options, *target);
  if (options.printTarget)
    return writeOutput(
        options, [&](llvm::raw_ostream &os) { writeTargetJson(*target, os); });

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics point at the model's source; dumping the IR is noise here.
  context.printOpOnDiagnostic(false);
  if (!options.remarksPath.empty()) {
    // Every category; the text remarks are printed as they always are.
    remark::RemarkCategories all;
    all.all = all.passed = all.missed = all.analysis = all.failed = ".*";
    if (failed(remark::enableOptimizationRemarksWithLLVMStreamer(
            context, options.remarksPath, llvm::remarks::Format::YAML,
            std::make_unique<remark::RemarkEmittingPolicyAll>(), all))) {
      llvm::errs() << "opt-fuse: error: --remarks-output-file: cannot write "
                   << options.remarksPath << "\n";
      return ExitIO;
    }
  }
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // Errors that report a compiler bug turn the exit code into
  // ExitInternalError; every diagnostic still reaches the handler above.
  bool internalError = false;
  ScopedDiagnosticHandler bugs(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        isInternalError(diagnostic.str()))
      internalError = true;
    return failure();
  });
  auto finish = [&](int code) {
    if (!internalError || code == ExitSuccess)
      return code;
    llvm::errs() << "opt-fuse: error: the error above is a compiler bug, "
                    "not a problem with the model (exit "
                 << ExitInternalError << "); please report it\n";
    return static_cast<int>(ExitInternalError);
  };

  ExitCode exitCode = ExitSuccess;
  OwningOpRef<ModuleOp> module =
      loadAnyModel(options, context, sourceMgr, exitCode);
  if (!module)
    return exitCode;

  const bool run = options.bench || options.check || options.checkOnHost;
  std::optional<EmitKind> emit = options.emit;
  // --autotune alone tunes and shows the result: the fused module, each
  // GEMM group with its fuse.matmul_tiling.
  if (!emit && !run)
    emit = options.autotune ? EmitKind::Fused : EmitKind::Mlir;
  const bool compile = run || emit != EmitKind::Mlir;
  // An imported model shows where each op came from: its ONNX node.
  bool textFormat = false;
  const bool imported = isOnnxInput(options, textFormat);
  auto writeModule = [&] {
    return writeOutput(options, [&](llvm::raw_ostream &os) {
      OpPrintingFlags flags;
      if (imported)
        flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
      module->print(os, flags);
      os << "\n";
    });
  };
  if (options.compileTo) {
    if (failed(selectFunction(*module, options.function)))
      return ExitUsage;
    return finish(compileToStage(options, *module, writeModule));
  }
  if (!compile && !options.checkFusion)
    return writeModule();
  if (options.eachFunction)
    return runEachFunction(options, *module);

  if (failed(selectFunction(*module, options.function)))
    return ExitUsage;
  if (options.checkFusion) {
    int code = finish(checkFusion(options, *module));
    if (code != ExitSuccess)
      return code;
    if (!compile)
      return options.emit ? writeModule() : ExitSuccess;
  }
  return finish(compileModel(options, emit, *module, *target, writeModule));
}

} // namespace opfuse
