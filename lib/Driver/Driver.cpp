//===- Driver.cpp - What opt-fuse does with its options -------------------===//
//
// Loads the model, compiles it with the library pipeline when the request
// needs kernels, writes the requested output, runs --bench/--check, and
// maps every failure to its exit code.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "GpuRun.h"

#include "opfuse/InitAll.h"
#include "opfuse/Pipeline/Pipeline.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
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
      .Default(std::nullopt);
}

const char *listEmitKinds() { return "mlir, fused, ptx, plan, summary"; }

namespace {
/// Writes `text` to the output path.
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

void writeSummary(llvm::raw_ostream &os, const UnfusedCost &before,
                  const LaunchPlan &plan, const std::string &ptx) {
  int64_t after = 0;
  for (const PlanKernel &kernel : plan.kernels)
    after += kernel.bytes;
  os << llvm::formatv("function @{0}\n", plan.function);
  os << llvm::formatv("kernels: {0} unfused -> {1} fused\n", before.kernels,
                      plan.kernels.size());
  os << llvm::formatv("device-memory bytes: {0} unfused -> {1} fused "
                      "({2:F2}x fewer)\n",
                      before.bytes, after,
                      after ? double(before.bytes) / after : 0.0);
  for (const PlanKernel &kernel : plan.kernels)
    os << llvm::formatv("  {0}: {1} ops, grid {2} x block {3}, {4} bytes, "
                        "{5} FLOPs\n",
                        kernel.name, kernel.numOps, kernel.grid[0],
                        kernel.block[0], kernel.bytes, kernel.flops);
  os << llvm::formatv("PTX: {0} bytes\n", ptx.size());
}
} // namespace

int runDriver(const DriverOptions &options) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  ExitCode exitCode = ExitSuccess;
  OwningOpRef<ModuleOp> module =
      loadModel(options.inputPath, context, sourceMgr, exitCode);
  if (!module)
    return exitCode;

  if (options.checkFusion) {
    int code = checkFusion(options, *module);
    if (code != ExitSuccess || (!options.emit && !options.bench &&
                                !options.check))
      return code;
  }
  const bool run = options.bench || options.check;
  std::optional<EmitKind> emit = options.emit;
  if (!emit && !run)
    emit = EmitKind::Mlir;
  if (emit == EmitKind::Mlir && !run)
    return writeOutput(options, [&](llvm::raw_ostream &os) {
      module->print(os);
      os << "\n";
    });

  OwningOpRef<ModuleOp> original = module->clone();
  UnfusedCost before = measureUnfused(*module);
  PassManager pm(&context);
  FusePipelineOptions pipeline;
  pipeline.fuse = options.fuse;
  pipeline.explain = options.explain;
  pipeline.chip = options.chip;
  pipeline.toolkit = options.cudaToolkit;
  pipeline.binary = emit != EmitKind::Fused || run;
  buildFusePipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return ExitUnsupported;

  if (emit == EmitKind::Fused) {
    int code = writeOutput(options, [&](llvm::raw_ostream &os) {
      module->print(os);
      os << "\n";
    });
    if (code != ExitSuccess || !run)
      return code;
  }
  FailureOr<std::string> ptx = extractPtx(*module);
  FailureOr<LaunchPlan> plan = buildLaunchPlan(*module);
  if (failed(ptx) || failed(plan))
    return ExitUnsupported;

  int code = ExitSuccess;
  if (emit == EmitKind::Ptx)
    code = writeOutput(options, [&](llvm::raw_ostream &os) { os << *ptx; });
  else if (emit == EmitKind::Plan)
    code = writeOutput(options,
                       [&](llvm::raw_ostream &os) { writePlanJson(*plan, os); });
  else if (emit == EmitKind::Summary)
    code = writeOutput(options, [&](llvm::raw_ostream &os) {
      writeSummary(os, before, *plan, *ptx);
    });
  if (code != ExitSuccess || !run)
    return code;
  return runOnGpu(options, *original, *ptx, *plan);
}

} // namespace opfuse
