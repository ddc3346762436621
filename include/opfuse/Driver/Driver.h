//===- Driver.h - What opt-fuse does with its options -----------*- C++ -*-===//
//
// The driver library behind opt-fuse: load and check a model, compile it,
// write what was asked for, and run it on the GPU. The tool only parses its
// command line into DriverOptions and calls runDriver.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DRIVER_DRIVER_H
#define OPFUSE_DRIVER_DRIVER_H

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
class PassManager;
} // namespace mlir

namespace opfuse {

/// What opt-fuse writes.
enum class EmitKind {
  /// The verified model, as MLIR text.
  Mlir,
  /// The model after fusion and kernel emission (groups and gpu.module).
  Fused,
  /// The kernels' PTX.
  Ptx,
  /// The launch plan, as JSON (docs/plan-format.md).
  Plan,
  /// Kernels and bytes before and after fusion, and the PTX size.
  Summary,
  /// The cost model's table per kernel, before/after totals, and with
  /// --bench the measurement beside each prediction.
  Report,
  /// The same as JSON (docs/report-format.md).
  ReportJson,
  /// The target's roofline with each kernel as a point, as SVG.
  Roofline,
  /// The buffer plan as a timeline, as SVG.
  Memory,
  /// The fused graph (kernels as clusters of ops) as Graphviz DOT.
  Dot,
  /// The same rendered to SVG by Graphviz's `dot` (DOT, with a note, when
  /// it is not installed).
  Graph,
};

/// Parses an --emit value; nullopt for an unknown one.
std::optional<EmitKind> parseEmitKind(llvm::StringRef value);

/// The accepted --emit values, for help and errors.
const char *listEmitKinds();

struct DriverOptions {
  /// Input path, or "-" for standard input.
  std::string inputPath;
  /// Output path, or "-" for standard output.
  std::string outputPath = "-";
  /// --remarks-output-file: --fuse-explain's decisions as structured
  /// remarks in this YAML file (empty: none).
  std::string remarksPath;
  /// Unset: mlir, unless --bench or --check asked for a run instead.
  std::optional<EmitKind> emit;
  /// --compile-to: run the pipeline up to this stage and write the module
  /// as it is there, instead of any --emit output.
  std::optional<CompileStage> compileTo;
  /// The function to compile; may stay empty when the model holds one.
  std::string function;
  /// Compile and run (--check, --bench, --check-fusion) every function of
  /// the model in turn, in one process: one CUDA context for all of them.
  bool eachFunction = false;
  /// How the model is compiled: fusion, the target, the emitters' knobs.
  CompileOptions compile;
  /// Give each GEMM kernel the tiling measured fastest on the GPU among the
  /// tile model's best candidates, kept in a tuning cache.
  bool autotune = false;
  /// Empty: TuningCache::defaultPath().
  std::string autotuneCache;
  int autotuneCandidates = 4;
  /// Run the model through the CPU reference before and after fusion and
  /// require identical outputs (no GPU needed).
  bool checkFusion = false;
  bool bench = false;
  bool check = false;
  /// Run the loop, view, row and transpose kernels on the host through the
  /// kernel interpreter and check them as --check does (no GPU needed).
  bool checkOnHost = false;
  /// Where --check's reference computes its large f64 matmuls: "auto"
  /// (cuBLAS on the GPU when it loads, else the host), "gpu" (cuBLAS or
  /// an error) or "host".
  std::string checkMatmuls = "auto";
  int warmup = 10;
  int iterations = 100;
  /// --cuda-graph: capture the plan into a CUDA graph and replay it (the
  /// runs are timed both ways and the faster reported).
  bool cudaGraph = true;
  /// --nccl: libnccl.so.2 for plans with collective steps; empty: search
  /// the library path and PyTorch's NVIDIA wheels.
  std::string ncclPath;
  /// --devices: run the function SPMD on this many devices, each on its
  /// slice of the arguments marked fuse.shard (the others replicated), the
  /// collectives combining them. 0 (not given): one device, and collectives
  /// of more devices run as on one device of identical data (CPU checks) or
  /// are refused (GPU runs).
  int devices = 0;
  bool json = false;
  uint64_t seed = 1;
  /// Measure the GPU and write a target file instead of compiling.
  bool calibrate = false;
  /// Write the --target description as a target file instead of compiling.
  bool printTarget = false;
  /// Testing only: report an internal error after fusion (exit code 8).
  bool testInternalError = false;
  /// How to read the input: "auto" (ONNX for .onnx and .onnxtxt, else
  /// MLIR), "mlir" or "onnx".
  std::string importFormat = "auto";
  /// --input-shape NAME=1x3x224x224, as given: the shapes of ONNX graph
  /// inputs the model leaves dynamic.
  std::vector<std::string> inputShapes;
  /// --inputs NAME=FILE.npy: an input's values from a NumPy file instead of
  /// the seeded ones. NAME is the ONNX input name, or argN.
  std::vector<std::string> inputFiles;
  /// --save-outputs DIR: every output of the GPU run as DIR/NAME.npy.
  std::string saveOutputsDir;
  /// --load-pass-plugin: shared libraries of passes that --pass-before and
  /// --pass-after pipelines (compile.hooks) may name.
  std::vector<std::string> passPlugins;
};

/// Reads `path` and parses it as a fuse model: the module verifies, holds at
/// least one func.func, and every function signature has static shapes.
/// Diagnostics go through `sourceMgr`'s handler as file:line:col. Sets
/// `exitCode` to ExitIO when the file cannot be read and ExitInvalidInput
/// when its contents are not a model.
mlir::OwningOpRef<mlir::ModuleOp> loadModel(llvm::StringRef path,
                                            mlir::MLIRContext &context,
                                            llvm::SourceMgr &sourceMgr,
                                            ExitCode &exitCode);

/// The same checks and parse on text already in memory (the fuzz target).
mlir::OwningOpRef<mlir::ModuleOp>
loadModel(std::unique_ptr<llvm::MemoryBuffer> buffer,
          mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
          ExitCode &exitCode);

/// Whether `options` read their input as ONNX (--import=onnx, or a .onnx or
/// .onnxtxt name with --import=auto); `textFormat` says which form, by the
/// name (.onnxtxt).
bool isOnnxInput(const DriverOptions &options, bool &textFormat);

/// Reads the model `options` names, an ONNX model (imported into one fuse
/// function, --import and --input-shape) or fuse MLIR (loadModel above).
/// Sets `exitCode` as loadModel does, ExitUsage for a bad --input-shape and
/// ExitUnsupported for ONNX ops the importer lacks.
mlir::OwningOpRef<mlir::ModuleOp> loadAnyModel(const DriverOptions &options,
                                               mlir::MLIRContext &context,
                                               llvm::SourceMgr &sourceMgr,
                                               ExitCode &exitCode);

/// Registers opfuse's passes and MLIR's it uses, then loads each pass
/// plugin and registers its passes; ExitIO, with the loader's message, for
/// one that does not load.
int loadPassPlugins(const std::vector<std::string> &paths);

/// Runs opt-fuse's work for `options`; returns the process exit code.
int runDriver(const DriverOptions &options);

/// Registers MLIR's command-line options for the context (threading,
/// diagnostics), the IR printer (--mlir-print-debuginfo, ...), pass
/// managers (--mlir-print-ir-after-all, --mlir-pass-statistics, ...) and
/// timing (--mlir-timing), as mlir-opt does; call before parsing the
/// command line. Every pass manager the driver runs then applies them.
void registerMlirCommandLineOptions();

/// MLIR's pass-manager and timing options, where a tool registered them
/// (registerMlirCommandLineOptions), applied to `pm`; nothing otherwise.
mlir::LogicalResult applyMlirCommandLineOptions(mlir::PassManager &pm);

} // namespace opfuse

#endif // OPFUSE_DRIVER_DRIVER_H
