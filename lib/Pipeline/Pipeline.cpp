//===- Pipeline.cpp - The opfuse compilation pipeline ---------------------===//
//
// The target, fusion, kernel emission, and the GPU path: SCF to CF,
// convert-gpu-to-nvvm, reconcile casts, fuse-serialize-kernels (PTX),
// with libdevice found explicitly (MLIR does not fail without it).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Pipeline/Pipeline.h"

#include "PipelineBuilder.h"

#include "opfuse/Analysis/Passes.h"
#include "opfuse/Conversion/FuseToGPU/Passes.h"
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"
#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

namespace opfuse {

namespace {
bool hasLibdevice(llvm::StringRef root) {
  llvm::SmallString<128> path(root);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::exists(path);
}
} // namespace

std::string resolveCudaToolkit(llvm::StringRef request) {
  if (request == "none")
    return "";
  if (request != "auto")
    return request.str();
  for (const char *variable : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(variable))
      if (hasLibdevice(value))
        return value;
  if (hasLibdevice("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

std::optional<std::string> checkCudaToolkit(llvm::StringRef request) {
  if (request == "auto" || request == "none" || hasLibdevice(request))
    return std::nullopt;
  return ("--cuda-toolkit=" + request +
          ": no nvvm/libdevice/libdevice.10.bc "
          "under it (give the CUDA root, 'auto' or 'none')")
      .str();
}

std::optional<int64_t> parseOverlapChunks(llvm::StringRef value) {
  if (value == "auto")
    return 0;
  if (value == "off")
    return -1;
  int64_t chunks = 0;
  if (value.getAsInteger(10, chunks) ||
      !llvm::is_contained({2, 3, 4, 6, 8}, chunks))
    return std::nullopt;
  return chunks;
}

std::optional<CompileStage> parseCompileStage(llvm::StringRef value) {
  return llvm::StringSwitch<std::optional<CompileStage>>(value)
      .Case("fused", CompileStage::Fused)
      .Case("planned", CompileStage::Planned)
      .Case("gpu", CompileStage::Gpu)
      .Case("llvm", CompileStage::Llvm)
      .Case("ptx", CompileStage::Ptx)
      .Default(std::nullopt);
}

const char *listCompileStages() { return "fused, planned, gpu, llvm, ptx"; }

void buildDecomposePasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(fuse::createFuseDecompose());
}

CompileOptions FusePipelineOptions::toCompileOptions() const {
  CompileOptions options;
  options.fuse = fuse;
  options.explain = explain;
  options.gemmPrologues = gemmPrologues;
  options.overlapCollectives = overlapCollectives;
  options.overlapSms = overlapSms;
  options.planOutputs = planOutputs;
  options.target = target;
  options.chip = chip;
  options.cudaToolkit = toolkit;
  options.emitter.blockSize = blockSize;
  options.emitter.vectorsPerThread = vectorsPerThread;
  options.emitter.windowRows = windowRows;
  options.emitter.rowElementsPerThread = rowElementsPerThread;
  options.emitter.matmulTiling = matmulTiling;
  options.emitter.attentionTiling = attentionTiling;
  options.emitter.allowTF32 = allowTF32;
  options.emitter.useTma = useTma;
  options.emitter.warpSpecialize = warpSpecialize;
  options.emitter.pingPong = pingPong;
  options.emitter.vectorStores = vectorStores;
  options.emitter.maxGridBlocks = maxGridBlocks;
  options.emitter.earlyLaunch = earlyLaunch;
  options.emitter.numerics = numerics;
  options.binary = binary;
  return options;
}

std::optional<std::string> checkCompileOptions(const CompileOptions &options) {
  if (!fuse::isGemmPrologueMode(options.gemmPrologues))
    return "--gemm-prologues=" + options.gemmPrologues +
           ": expected auto, always or never";
  if (!parseOverlapChunks(options.overlapCollectives))
    return "--overlap-collectives=" + options.overlapCollectives +
           ": expected auto, off or a chunk count (2, 3, 4, 6 or 8)";
  if (options.overlapSms < 1 || options.overlapSms > fuse::kMaxOverlapSms)
    return "--overlap-sms=" + std::to_string(options.overlapSms) +
           ": expected 1 to " + std::to_string(fuse::kMaxOverlapSms);
  if (std::optional<std::string> error = checkCudaToolkit(options.cudaToolkit))
    return error;
  return checkEmitterOptions(options.emitter);
}

void buildFusionPasses(PipelineBuilder &b) {
  const CompileOptions &options = b.getOptions();
  FuseSetTargetOptions target;
  target.target = options.target;
  target.chip = options.chip;
  b.add(createFuseSetTarget(target));
  b.add(createCanonicalizerPass());
  // Kernels are emitted for primitives only; with fusion a composite's
  // primitives become one kernel again, with its neighbours.
  if (options.fuse) {
    // Attention is fused by recognising it and keeping it whole for the
    // attention kernel; without fusion every composite is decomposed.
    // Before fusion, so that each chunk's GEMM takes its own epilogue and
    // the users of the joined chunks read them as an index map.
    std::optional<int64_t> chunks =
        parseOverlapChunks(options.overlapCollectives);
    if (chunks && *chunks >= 0) {
      fuse::FuseWindowCollectivesOptions window;
      window.chunks = *chunks;
      window.overlapSms = options.overlapSms;
      window.explain = options.explain;
      b.add(fuse::createFuseWindowCollectives(window), "func.func");
    }
    fuse::FuseRecognizeAttentionOptions recognize;
    recognize.explain = options.explain;
    b.add(fuse::createFuseRecognizeAttention(recognize), "func.func");
    fuse::FuseDecomposeOptions decompose;
    decompose.keepAttention = true;
    decompose.explain = options.explain;
    b.add(fuse::createFuseDecompose(decompose), "func.func");
    // After decomposition, so that a norm's primitives carry transposes
    // like any elementwise op.
    fuse::FuseSinkTransposesOptions sink;
    sink.explain = options.explain;
    b.add(fuse::createFuseSinkTransposes(sink), "func.func");
    fuse::FuseElementwiseOptions fusion;
    fusion.explain = options.explain;
    fusion.gemmPrologues = options.gemmPrologues;
    b.add(fuse::createFuseElementwise(fusion), "func.func");
  } else {
    b.add(fuse::createFuseDecompose(), "func.func");
  }
  b.add(fuse::createFuseOutlineKernels(), "func.func");
  if (options.stopAfter == CompileStage::Fused)
    return;
  fuse::FusePlanMemoryOptions memory;
  memory.planOutputs = options.planOutputs;
  memory.explain = options.explain;
  b.add(fuse::createFusePlanMemory(memory), "func.func");
}

void buildKernelEmissionPasses(PipelineBuilder &b) {
  const CompileOptions &options = b.getOptions();
  const EmitterOptions &emitter = options.emitter;
  ConvertFuseToGPUOptions emission;
  emission.blockSize = emitter.blockSize;
  emission.vectorsPerThread = emitter.vectorsPerThread;
  emission.windowRows = emitter.windowRows;
  emission.rowElementsPerThread = emitter.rowElementsPerThread;
  emission.matmulTiling = emitter.matmulTiling;
  emission.attentionTiling = emitter.attentionTiling;
  emission.allowTF32 = emitter.allowTF32;
  emission.useTma = emitter.useTma;
  emission.warpSpecialize = emitter.warpSpecialize;
  emission.pingPong = emitter.pingPong;
  emission.vectorStores = emitter.vectorStores;
  emission.maxGridBlocks = emitter.maxGridBlocks;
  emission.earlyLaunch = emitter.earlyLaunch;
  emission.numerics = emitter.numerics;
  b.add(createConvertFuseToGPU(emission));
  b.add(createDedupKernels());
  if (!options.binary || options.stopAfter == CompileStage::Gpu)
    return;

  std::string toolkit = resolveCudaToolkit(options.cudaToolkit);
  if (toolkit.empty()) {
    // No libdevice: approximate transcendentals with polynomials instead of
    // leaving __nv_* externs that ptxas cannot resolve.
    b.add(createApproximateMath(), "gpu.module");
  }
  b.add(createSCFToControlFlowPass(), "gpu.module");
  b.add(createConvertGpuOpsToNVVMOps(), "gpu.module");
  // wgmma and the proxy fence are NVVM ops written as inline PTX.
  b.add(createConvertNVVMToLLVMPass(), "gpu.module");
  b.add(createReconcileUnrealizedCastsPass(), "gpu.module");
  if (options.stopAfter == CompileStage::Llvm)
    return;
  SerializeKernelsOptions serialise;
  serialise.toolkitPath = toolkit;
  b.add(createSerializeKernels(serialise));
}

void buildFusePipeline(PipelineBuilder &b) {
  buildFusionPasses(b);
  buildKernelEmissionPasses(b);
}

void buildFusionPasses(OpPassManager &pm, const CompileOptions &options) {
  PipelineBuilder builder(pm, options);
  buildFusionPasses(builder);
}

void buildKernelEmissionPasses(OpPassManager &pm,
                               const CompileOptions &options) {
  PipelineBuilder builder(pm, options);
  buildKernelEmissionPasses(builder);
}

void buildFusePipeline(OpPassManager &pm, const CompileOptions &options) {
  PipelineBuilder builder(pm, options);
  buildFusePipeline(builder);
}

void registerFusePipeline() {
  PassPipelineRegistration<FusePipelineOptions>(
      "fuse-pipeline",
      "opfuse's whole pipeline: fuse-set-target, canonicalize, "
      "fuse-window-collectives, fuse-recognize-attention, fuse-decompose, "
      "fuse-sink-transposes, fuse-elementwise, fuse-outline-kernels, "
      "fuse-plan-memory, convert-fuse-to-gpu, fuse-dedup-kernels, NVVM "
      "lowering and fuse-serialize-kernels (PTX)",
      [](OpPassManager &pm, const FusePipelineOptions &options) {
        buildFusePipeline(pm, options.toCompileOptions());
      });
}

} // namespace opfuse
