//===- Pipeline.h - The opfuse compilation pipeline -------------*- C++ -*-===//
//
// The one definition of what opt-fuse runs, registered as --fuse-pipeline
// for opfuse-opt so lit tests the same passes the driver uses.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_PIPELINE_PIPELINE_H
#define OPFUSE_PIPELINE_PIPELINE_H

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// What the pipeline compiles with, as plain values: opt-fuse's
/// DriverOptions embed one, and --fuse-pipeline's options become one.
/// Where --compile-to stops the pipeline (IREE's convention): after fusion
/// (fuse.group kernels), after buffer planning (offsets on the groups),
/// after kernel emission (gpu.func kernels), after the NVVM lowering (the
/// kernels in the LLVM dialect), or after serialisation (gpu.binary, PTX).
enum class CompileStage { Fused, Planned, Gpu, Llvm, Ptx };

/// Parses a --compile-to value; nullopt for an unknown one.
std::optional<CompileStage> parseCompileStage(llvm::StringRef value);

/// --overlap-collectives: 0 for "auto" (the cost model chooses), -1 for
/// "off", or the chunk count; nothing for anything else.
std::optional<int64_t> parseOverlapChunks(llvm::StringRef value);

/// The accepted --compile-to values, for help and errors.
const char *listCompileStages();

/// --pass-before=NAME:PIPELINE / --pass-after=NAME:PIPELINE: a pass
/// pipeline put into the driver's own, next to the pass whose argument is
/// NAME and at its nesting (on each func.func for the fusion passes).
struct PassHook {
  /// The argument of a pass of the pipeline ("fuse-elementwise").
  std::string anchor;
  /// After the anchor; before it otherwise.
  bool after = false;
  /// A textual pass pipeline, as mlir-opt's --pass-pipeline takes inside
  /// its anchor ("canonicalize,my-pass{option=1}").
  std::string pipeline;
};

/// A pass of the pipeline and the op it runs on.
struct PipelinePass {
  /// Its command-line argument ("fuse-elementwise").
  std::string argument;
  /// "builtin.module", "func.func" or "gpu.module".
  std::string nesting;
};

struct CompileOptions {
  /// Run the fusion passes (off: one kernel per op).
  bool fuse = true;
  /// Remark on every fusion and planning decision.
  bool explain = false;
  /// When GEMMs compute A in a prologue: auto (where the cost model says
  /// it pays), always or never.
  std::string gemmPrologues = "auto";
  /// Whether a GEMM that feeds an all_reduce is split into chunks whose
  /// all_reduces overlap the next chunk (fuse-window-collectives): "auto"
  /// (where the cost model predicts a gain), "off", or a chunk count.
  std::string overlapCollectives = "auto";
  /// SMs those GEMMs leave to NCCL.
  int64_t overlapSms = 16;
  /// Whether the user chose overlapSms: only then is a value the target
  /// cannot spare a usage error (the default declines to window instead).
  bool overlapSmsGiven = false;
  /// Plan the function's results into the arena too.
  bool planOutputs = false;
  /// A built-in target (a100, h100, h200) or a target file.
  std::string target = "h200";
  /// The kernels' SM architecture; empty: the target's.
  std::string chip;
  /// CUDA root for libdevice: "auto", "none" or a path.
  std::string cudaToolkit = "auto";
  /// The kernel emitters' knobs (convert-fuse-to-gpu's options).
  EmitterOptions emitter;
  /// Serialise the kernels to PTX (gpu.binary).
  bool binary = true;
  /// Build only the passes up to this stage (--compile-to); all of them
  /// when unset.
  std::optional<CompileStage> stopAfter;
  /// Pipelines put in before or after the pipeline's passes, in order.
  std::vector<PassHook> hooks;
};

/// The options of --fuse-pipeline (opfuse-opt); the same knobs as
/// CompileOptions, with the pass options' names.
struct FusePipelineOptions
    : public mlir::PassPipelineOptions<FusePipelineOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Run the fusion passes (off: one kernel "
                                   "per op)"),
                    llvm::cl::init(true)};
  Option<bool> explain{*this, "fuse-explain",
                       llvm::cl::desc("Remark on every fusion decision"),
                       llvm::cl::init(false)};
  Option<std::string> gemmPrologues{
      *this, "gemm-prologues",
      llvm::cl::desc("When GEMMs compute A from elementwise ops in a "
                     "prologue: auto (where the cost model says it pays), "
                     "always or never"),
      llvm::cl::init("auto")};
  Option<std::string> overlapCollectives{
      *this, "overlap-collectives",
      llvm::cl::desc("Split a GEMM that feeds an all_reduce into chunks "
                     "whose all_reduces overlap the next chunk: auto "
                     "(where the cost model predicts a gain), off, or a "
                     "chunk count (2, 3, 4, 6 or 8)"),
      llvm::cl::init("auto")};
  Option<int64_t> overlapSms{
      *this, "overlap-sms",
      llvm::cl::desc("SMs the chunked GEMMs leave to NCCL (1 to 64)"),
      llvm::cl::init(16)};
  Option<bool> planOutputs{
      *this, "plan-outputs",
      llvm::cl::desc("Plan the function's results into the arena too"),
      llvm::cl::init(false)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU target: a100, h100, h200 or a target JSON file"),
      llvm::cl::init("h200")};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("SM architecture of the kernels (default: the "
                     "target's)"),
      llvm::cl::init("")};
  Option<std::string> toolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit root for libdevice; 'auto' searches "
                     "CUDA_ROOT, CUDA_HOME, CUDA_PATH and /usr/local/cuda; "
                     "'none' uses MLIR's polynomial approximations"),
      llvm::cl::init("auto")};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the loop and row kernels"),
      llvm::cl::init(256)};
  Option<int64_t> vectorsPerThread{
      *this, "vectors-per-thread",
      llvm::cl::desc("Vectors each thread of an elementwise kernel owns"),
      llvm::cl::init(2)};
  Option<int64_t> windowRows{
      *this, "window-rows",
      llvm::cl::desc("Neighbouring outputs along a row each thread of a view "
                     "kernel reading windows computes (0: the emitter's "
                     "rule; 1, 2, 4 or 8)"),
      llvm::cl::init(0)};
  Option<int64_t> rowElementsPerThread{
      *this, "row-elements-per-thread",
      llvm::cl::desc("Elements of its row each thread of a row-reduction "
                     "kernel holds in registers at most"),
      llvm::cl::init(32)};
  Option<std::string> matmulTiling{
      *this, "matmul-tiling",
      llvm::cl::desc("Tiles of the tensor-core GEMM kernels as "
                     "[wgmma:]BMxBNxBK/WMxWN/S[/kP], or auto"),
      llvm::cl::init("auto")};
  Option<std::string> attentionTiling{
      *this, "attention-tiling",
      llvm::cl::desc("Tiles of the fused attention kernel as "
                     "[wgmma:|tma:]BMxBN[/kS|/persistent] (query rows per "
                     "block x keys per step, a key split, persistent "
                     "blocks), or auto"),
      llvm::cl::init("auto")};
  Option<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("f32 matmuls and convolutions on tensor cores as TF32"),
      llvm::cl::init(false)};
  Option<bool> useTma{
      *this, "tma",
      llvm::cl::desc("Copy warpgroup-MMA GEMM operands with TMA where "
                     "possible (false: cp.async)"),
      llvm::cl::init(true)};
  Option<bool> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("Warp-specialised persistent TMA GEMM kernels"),
      llvm::cl::init(true)};
  Option<bool> pingPong{
      *this, "ping-pong",
      llvm::cl::desc("Ping-pong consumers in warp-specialised GEMM kernels "
                     "of at most 128 columns"),
      llvm::cl::init(false)};
  Option<bool> vectorStores{
      *this, "gemm-vector-stores",
      llvm::cl::desc("16-byte GEMM epilogue stores where the outputs allow"),
      llvm::cl::init(true)};
  Option<bool> earlyLaunch{
      *this, "early-launch",
      llvm::cl::desc("sm_90: kernels wait for the grids before them, so "
                     "the runtime may launch them early (programmatic "
                     "dependent launch)"),
      llvm::cl::init(true)};
  Option<int64_t> maxGridBlocks{
      *this, "max-grid-blocks",
      llvm::cl::desc("The most blocks a loop, view, transpose or row "
                     "kernel launches (grid-stride beyond)"),
      llvm::cl::init((int64_t(1) << 31) - 1)};
  Option<std::string> numerics{
      *this, "numerics",
      llvm::cl::desc("default (f16/bf16 intermediates of a kernel in f32) "
                     "or strict (every op rounds to its type)"),
      llvm::cl::init("default")};
  Option<bool> binary{*this, "emit-binary",
                      llvm::cl::desc("Serialise the kernels to PTX "
                                     "(gpu.binary)"),
                      llvm::cl::init(true)};

  CompileOptions toCompileOptions() const;
};

/// The CUDA toolkit root holding nvvm/libdevice/libdevice.10.bc, following
/// `request` ("auto", "none" or a path); empty when none is used.
std::string resolveCudaToolkit(llvm::StringRef request);

/// Why `request` cannot serve as --cuda-toolkit (a path without
/// nvvm/libdevice/libdevice.10.bc), or nullopt when it can.
std::optional<std::string> checkCudaToolkit(llvm::StringRef request);

/// fuse-decompose on every function: composites (softmax, layer_norm,
/// rms_norm) as the primitives that --no-fuse runs one kernel each.
void buildDecomposePasses(mlir::OpPassManager &pm);

/// The graph-level part: fuse-set-target, canonicalize, fuse-decompose,
/// fuse-elementwise when `options.fuse`, fuse-outline-kernels, then
/// fuse-plan-memory. --check-fusion compares the model before and after
/// it.
void buildFusionPasses(mlir::OpPassManager &pm, const CompileOptions &options);

/// The kernel part: convert-fuse-to-gpu and, with `binary`, the NVVM
/// lowering and serialisation to PTX.
void buildKernelEmissionPasses(mlir::OpPassManager &pm,
                               const CompileOptions &options);

/// buildFusionPasses, then buildKernelEmissionPasses.
void buildFusePipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// Why `options` cannot compile anything (a --cuda-toolkit without
/// libdevice, an emitter option out of range), naming the option, or
/// nothing when they can. The passes check the same in initialize().
std::optional<std::string> checkCompileOptions(const CompileOptions &options);

/// Parses one --pass-before (`after` false) or --pass-after value; nullopt
/// and `error` when it is not NAME:PIPELINE.
std::optional<PassHook> parsePassHook(llvm::StringRef value, bool after,
                                      std::string &error);

/// The passes `options` build, in order, without hooks and through
/// serialisation whatever the stage: what hooks may be anchored on.
std::vector<PipelinePass> listPipelinePasses(const CompileOptions &options);

/// Why a hook of `options` cannot go in (its anchor is no pass of the
/// pipeline, or its pipeline does not parse: an unregistered pass, a bad
/// option), naming the flag; nothing when every one can. Call after the
/// passes (and plugins) are registered and before building.
std::optional<std::string> checkPassHooks(const CompileOptions &options);

/// Registers --fuse-pipeline.
void registerFusePipeline();

} // namespace opfuse

#endif // OPFUSE_PIPELINE_PIPELINE_H
