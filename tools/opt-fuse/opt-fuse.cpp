//===- opt-fuse.cpp - The opfuse compiler driver --------------------------===//
//
// Parses the command line into DriverOptions and hands over to the driver
// library; usage errors exit with ExitUsage, never with LLVM's default 1.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("opt-fuse options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.mlir | ->"),
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<std::string> emit(
    "emit",
    cl::desc("What to write: mlir (the verified model, the default), fused "
             "(after fusion and kernel emission), ptx, plan (launch plan "
             "JSON), summary (kernels and bytes before and after fusion), "
             "report (per kernel: ops, bound, FLOPs, bytes, intensity, "
             "predicted us; with --bench measured P50/P99 beside), "
             "report-json (the same as JSON), roofline (SVG picture), "
             "memory (the buffer plan as an SVG timeline), dot (the fused "
             "graph in Graphviz's DOT: kernels as clusters coloured by "
             "bound, edges through memory labelled with bytes, fusion's "
             "refusals dashed with their reason), graph (the "
             "same rendered to SVG by Graphviz's dot; the DOT, with a note, "
             "without it)"),
    cl::value_desc("kind"), cl::cat(category));
cl::opt<std::string>
    function("function",
             cl::desc("The function to compile when the model holds several"),
             cl::value_desc("name"), cl::cat(category));
cl::opt<std::string> importFormat(
    "import",
    cl::desc("How to read the input: auto (ONNX for .onnx and .onnxtxt "
             "files, fuse MLIR otherwise), mlir, or onnx (a binary ONNX "
             "model, or its protobuf text form when the name ends in "
             ".onnxtxt)"),
    cl::value_desc("auto|mlir|onnx"), cl::init("auto"), cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("The shape of an ONNX graph input whose dimensions the model "
             "leaves dynamic (repeat for several inputs)"),
    cl::value_desc("NAME=DxDx..."), cl::cat(category));
cl::list<std::string> inputFiles(
    "inputs",
    cl::desc("With --bench, --check or --check-on-host: an input's values "
             "from a NumPy .npy file instead of seeded ones; NAME is the ONNX "
             "input name or argN (repeat for several inputs)"),
    cl::value_desc("NAME=FILE.npy"), cl::cat(category));
cl::opt<std::string> saveOutputs(
    "save-outputs",
    cl::desc("With --bench, --check or --check-on-host: write every output "
             "of the run (on the GPU, or the kernels interpreted on the host) "
             "to DIR/NAME.npy (its ONNX name, or resultN); bf16 as f32"),
    cl::value_desc("DIR"), cl::cat(category));
cl::opt<bool> eachFunction(
    "each-function",
    cl::desc("With --check, --bench or --check-fusion: run every function of "
             "the model in turn, in one process and one CUDA context, each "
             "followed by a line 'opt-fuse: @NAME: exit N'; the exit code is "
             "the first failing function's"),
    cl::cat(category));
cl::opt<bool> noFuse("no-fuse",
                     cl::desc("Compile one kernel per op (the unfused "
                              "baseline)"),
                     cl::cat(category));
cl::opt<bool> explain("fuse-explain",
                      cl::desc("Remark on every fusion decision and every "
                               "edge where a kernel stops, with its reason"),
                      cl::cat(category));
cl::opt<std::string> remarksOutputFile(
    "remarks-output-file",
    cl::desc("Write --fuse-explain's decisions (implied) as structured "
             "remarks to this YAML file: pass, outcome (Passed, Missed, "
             "Analysis), kind of decision, location, function and reason"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> gemmPrologues(
    "gemm-prologues",
    cl::desc("When a matmul computes its A operand from the elementwise ops "
             "that produce it (a prologue on each K slice in shared memory): "
             "auto (default: where the cost model predicts it pays), always "
             "(wherever the GEMM kernel can, also a norm's per-row "
             "statistics where A has at most 64 rows: each block reduces "
             "its rows itself, measured slower than the norm's kernel on the "
             "H200) or never (they stay a kernel of their own)"),
    cl::value_desc("auto|always|never"), cl::init("auto"), cl::cat(category));
cl::opt<std::string> overlapCollectives(
    "overlap-collectives",
    cl::desc("Split a matmul whose result only an all_reduce reads (a "
             "row-parallel layer) into row chunks, so that each chunk's "
             "all_reduce runs on a stream of its own while the next chunk "
             "multiplies: auto (default: where the cost model predicts a "
             "gain of 5% or more), off, or a chunk count (2, 3, 4, 6 or 8)"),
    cl::value_desc("auto|off|N"), cl::init("auto"), cl::cat(category));
cl::opt<int64_t> overlapSms(
    "overlap-sms",
    cl::desc("SMs the chunked GEMMs of --overlap-collectives leave free "
             "and the CTAs NCCL may use (NCCL_MAX_CTAS) for the all_reduces "
             "beside them (1 to 64, default 16)"),
    cl::value_desc("N"), cl::init(16), cl::cat(category));
cl::opt<bool> planOutputs(
    "plan-outputs",
    cl::desc("Plan the function's results into the arena too (by default "
             "the caller owns them)"),
    cl::cat(category));
cl::opt<std::string> target(
    "target",
    cl::desc("GPU the cost model predicts for: a100, h100, h200 (datasheet "
             "figures; default h200) or a target JSON file, such as one "
             "written by --calibrate"),
    cl::value_desc("name|file.json"), cl::init("h200"), cl::cat(category));
cl::opt<std::string> chip("chip",
                          cl::desc("SM architecture of the kernels (default: "
                                   "the target's, sm_90 for h100/h200)"),
                          cl::cat(category));
cl::opt<bool> printTarget(
    "print-target",
    cl::desc("Write the --target description as a target file to -o (a "
             "starting point for a custom target; takes no model)"),
    cl::cat(category));
cl::opt<bool> calibrate(
    "calibrate",
    cl::desc("On the GPU: measure copy bandwidth (HBM, L2), FP32 and "
             "tensor-core throughput and launch overhead, and write a "
             "target file to -o for --target (takes no model); with "
             "--devices=N (2 or more) also the link bandwidth, an all_reduce "
             "of 256 MB through NCCL on GPUs 0 to N-1, and the same with "
             "NCCL held to --overlap-sms CTAs (logged)"),
    cl::cat(category));
cl::opt<int> vectorsPerThread(
    "vectors-per-thread",
    cl::desc("16-byte vectors each thread of an elementwise kernel owns "
             "(1, 2 or 4; default 2), all loaded before any arithmetic; "
             "kernels too small to fill every thread slot of the GPU at "
             "that many, or whose last wave of blocks it would empty, keep "
             "one"),
    cl::init(2), cl::cat(category));
cl::opt<int> windowRows(
    "window-rows",
    cl::desc("Neighbouring outputs along a row each thread of a view kernel "
             "computes where the kernel reads windows of one input at offsets "
             "along that row (a depthwise convolution's taps), so that the "
             "loads they share are read once: 0 (default) lets the emitter "
             "choose 4 or 2 by the window columns a thread holds, where they "
             "divide the row, or 1 (none); 1, 2, 4 or 8 force that many "
             "(never more than the row holds)"),
    cl::init(0), cl::cat(category));
cl::opt<int> rowElementsPerThread(
    "row-elements-per-thread",
    cl::desc("Elements of its row each thread of a row-reduction kernel "
             "(softmax, normalisations, reduce_*) holds in registers: 8, "
             "16, 32 or 64 (default 32); longer rows get more threads, and "
             "beyond 1024 threads a row is streamed in passes"),
    cl::init(32), cl::cat(category));
cl::opt<std::string> compileTo(
    "compile-to",
    cl::desc("Stop after a stage of the pipeline and print the module there "
             "(instead of --emit): fused (fuse.group kernels), planned (with "
             "the buffer plan's offsets), gpu (the gpu.func kernels), llvm "
             "(the kernels in the LLVM dialect) or ptx (gpu.binary)"),
    cl::value_desc("stage"), cl::cat(category));
cl::opt<std::string> attentionTiling(
    "attention-tiling",
    cl::desc("Tiles of the fused attention kernel: "
             "[wgmma:|tma:]BMxBN[/kS|/persistent] "
             "= query rows per block (64 or 128; 192 with tma: at head "
             "dims up to 64) x keys per step (32, 64 or "
             "128); mma.sync with 4 warps, or with wgmma: (sm_90, head dims "
             "multiples of 64, BN 64 or 128) a warpgroup per 64 rows, or "
             "with tma: the same fed by a TMA producer warpgroup, the "
             "compute warpgroups taking turns; /kS splits each query "
             "tile's keys among S blocks (1-64; tma: needs no causal mask "
             "and a key tile a split), the last "
             "to finish combining them; /persistent (tma: with BM 128 or "
             "192) launches one block an SM, each taking query tiles in "
             "turn; auto (default) takes tma where it "
             "can (128 keys per step; 192 rows at head dim 64 where the "
             "tiles fill the GPU; persistent blocks without a causal or "
             "additive mask up to 4096 keys), wgmma under --no-tma, "
             "mma.sync elsewhere, and splits the keys of decode steps (64 "
             "queries or fewer, fewer query tiles than SMs)"),
    cl::value_desc("[wgmma:|tma:]BMxBN[/kS|/persistent]"), cl::init("auto"),
    cl::cat(category));
cl::opt<std::string> matmulTiling(
    "matmul-tiling",
    cl::desc("Tiles of the tensor-core GEMM kernels: "
             "[wgmma:]BMxBNxBK/WMxWN/S[/kP] = output tile per block, warps "
             "per block (mma.sync, each owning BM/WM x BN/WN) or warpgroups "
             "(wgmma:, WN = 1, 64 rows each), shared-memory stages, and "
             "optionally K split among P blocks per tile (split-K; with "
             "wgmma: into equal parts, fed by cp.async); auto (default) lets "
             "the tile model pick per GEMM (wgmma "
             "on sm_90 for bf16/f16, mma.sync elsewhere and for f32, split-K "
             "where the tiles leave SMs idle)"),
    cl::init("auto"), cl::cat(category));
cl::opt<bool> autotune(
    "autotune",
    cl::desc("Time the tile model's best tilings of each GEMM kernel on the "
             "GPU and use the fastest; results are kept in the tuning cache, "
             "so a GEMM found there needs no GPU"),
    cl::cat(category));
cl::opt<std::string> autotuneCache(
    "autotune-cache",
    cl::desc("Tuning cache file of --autotune (default: "
             "$XDG_CACHE_HOME/opfuse/autotune.json, ~/.cache when unset)"),
    cl::value_desc("path"), cl::cat(category));
cl::opt<int> autotuneCandidates(
    "autotune-candidates",
    cl::desc("Tilings --autotune times per GEMM kernel, the tile model's "
             "best first (1-16, default 4)"),
    cl::init(4), cl::cat(category));
cl::opt<bool> allowTF32(
    "allow-tf32",
    cl::desc("Run f32 matmuls and convolutions on tensor cores as TF32: "
             "inputs rounded to 10-bit mantissas, about 3 decimal digits "
             "(the report says so, and --check uses TF32 tolerances); "
             "without it they run as f32 FMAs"),
    cl::cat(category));
cl::opt<std::string> numerics(
    "numerics",
    cl::desc("default: f16 and bf16 values inside a fused kernel stay in "
             "f32 and round once, where the kernel stores them (more "
             "accurate than the unfused model), and a row kernel divides by "
             "a per-row value (softmax's sum) through its reciprocal, with "
             "IEEE division's bits but below 2^-100 (within an f32 ulp and "
             "a half where the quotient is only rounded to f16 or bf16); "
             "strict: every op's f16 "
             "or bf16 result rounds to its type, so the fused model computes "
             "what the unfused one does (parity with eager frameworks), and "
             "every division is div.rn. --check compares each mode with its "
             "own reference"),
    cl::value_desc("default|strict"), cl::init("default"), cl::cat(category));
cl::opt<bool> noTma(
    "no-tma",
    cl::desc("Feed the sm_90 GEMM and attention kernels' warpgroup MMAs "
             "with every thread's cp.async copies instead of TMA copies (one "
             "thread, tensor maps the runtime encodes); for comparisons"),
    cl::cat(category));
cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("Warp-specialise the persistent TMA GEMM kernels of two MMA "
             "warpgroups (default on): a producer warpgroup issues every "
             "copy and stages are released through mbarriers; "
             "--warp-specialize=false keeps the cooperative kernel, whose "
             "MMA warpgroups issue the copies themselves"),
    cl::init(true), cl::cat(category));
cl::opt<bool> pingPong(
    "ping-pong",
    cl::desc("Ping-pong consumers in the TMA GEMM kernels of two MMA "
             "warpgroups and at most 128 columns (e.g. "
             "--matmul-tiling=wgmma:128x128x64/2x1/6; they are "
             "warp-specialised even with --warp-specialize=false): each "
             "warpgroup owns every other tile, so one's epilogue runs under "
             "the other's MMAs; off by default (docs/benchmarks.md)"),
    cl::cat(category));
cl::opt<bool> gemmVectorStores(
    "gemm-vector-stores",
    cl::desc("Store GEMM epilogue results 16 bytes a thread where every "
             "output is 16-bit with rows and slices of multiples of 8 "
             "elements (default on; the threads sharing a row trade their "
             "pairs with shuffles); --gemm-vector-stores=false stores 4-byte "
             "pairs, for comparisons"),
    cl::init(true), cl::cat(category));
cl::opt<bool> earlyLaunch(
    "early-launch",
    cl::desc("On sm_90 (default on): every kernel waits for the kernels "
             "before it (griddepcontrol.wait) before it reads their outputs "
             "or writes, so the runtime launches it while the kernel before "
             "it ends (programmatic dependent launch), in CUDA graphs too; "
             "GEMM kernels on mma.sync copy their first slices of the "
             "model's inputs (weights) before that wait. --early-launch=false "
             "compiles kernels the runtime launches in stream order only, "
             "for comparisons"),
    cl::init(true), cl::cat(category));
cl::opt<int64_t> maxGridBlocks(
    "max-grid-blocks",
    cl::desc("The most blocks a loop, view, transpose or row kernel "
             "launches (1 to 2^31-1, CUDA's limit and the default); a "
             "kernel with more blocks of work walks them in a grid-stride "
             "loop. Smaller values test those loops on small tensors"),
    cl::init((int64_t(1) << 31) - 1), cl::cat(category));
cl::opt<std::string> toolkit(
    "cuda-toolkit",
    cl::desc("CUDA root for libdevice: auto (CUDA_ROOT, CUDA_HOME, CUDA_PATH, "
             "/usr/local/cuda), none (polynomial approximations) or a path"),
    cl::init("auto"), cl::cat(category));
cl::opt<bool> checkFusion(
    "check-fusion",
    cl::desc("On the CPU: run the reference interpreter on the model before "
             "and after fusion and require identical outputs"),
    cl::cat(category));
cl::opt<bool> bench("bench",
                    cl::desc("Run on the GPU: P50/P99/mean latency, per-kernel "
                             "P50, GB/s and % of a same-run copy"),
                    cl::cat(category));
cl::opt<bool> check("check",
                    cl::desc("Run on the GPU and compare every output with "
                             "the CPU reference of its kernels (f32 inside "
                             "each kernel, rounded where it stores)"),
                    cl::cat(category));
cl::opt<bool> checkOnHost(
    "check-on-host",
    cl::desc("Check the kernels without a GPU: run them on the host by "
             "interpreting the IR they are emitted as (loop, view, row and "
             "transpose kernels, and GEMM, convolution and attention "
             "kernels compiled with --chip=sm_80: mma.sync, ldmatrix, "
             "cp.async; exit 4 for an sm_90 kernel's warpgroup MMA or TMA "
             "operations), every load and store bounds- "
             "and alignment-checked and shared memory checked for races, "
             "and compare every output with the reference as --check does; "
             "with --devices=N, SPMD on N host devices whose collective "
             "steps combine their tensors"),
    cl::cat(category));
cl::opt<std::string> checkMatmuls(
    "check-matmuls",
    cl::desc("Where --check's reference computes its large matmuls (f64 "
             "sums either way): auto, on the GPU through cuBLAS's DGEMM "
             "when libcublas loads and on the host's cores otherwise; gpu, "
             "cuBLAS or an error; host, never the GPU"),
    cl::value_desc("auto|gpu|host"), cl::init("auto"), cl::cat(category));
cl::opt<bool> cudaGraph(
    "cuda-graph",
    cl::desc("With --bench/--check: capture the launch plan into a CUDA "
             "graph once and replay it, one launch per run instead of one "
             "per step (default on); --bench times runs both ways and "
             "reports both, the faster as the latency; "
             "--cuda-graph=false launches step by step only"),
    cl::init(true), cl::cat(category));
cl::opt<std::string> ncclPath(
    "nccl",
    cl::desc("libnccl.so.2 for plans with collective steps (default: the "
             "library path, then the NVIDIA wheels of the Python "
             "installations found, where PyTorch ships NCCL)"),
    cl::value_desc("path"), cl::cat(category));
cl::opt<int> devices(
    "devices",
    cl::desc("With --check-fusion, --check, --check-on-host or --bench: run "
             "the function SPMD on N devices (GPUs 0 to N-1, or N host "
             "devices with --check-on-host), one run per device on its "
             "slice of each argument marked {fuse.shard = AXIS} (the global "
             "tensor is N times as long along AXIS; unmarked arguments are "
             "replicated); every collective must span N devices. --check "
             "compares each device's outputs with the reference run of all "
             "N devices"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<int> warmup("warmup", cl::desc("Untimed runs before timing (10)"),
                    cl::init(10), cl::cat(category));
cl::opt<int> iterations("iters", cl::desc("Timed runs (100)"), cl::init(100),
                        cl::cat(category));
cl::opt<bool> json("json",
                   cl::desc("Print --bench's measurement and --check's "
                            "results as one JSON document"),
                   cl::cat(category));
cl::opt<unsigned long long> seed("seed",
                                 cl::desc("Seed of the generated inputs (1)"),
                                 cl::init(1), cl::cat(category));
cl::list<std::string> passPlugins(
    "load-pass-plugin",
    cl::desc("Load a pass plugin (a shared library built against the "
             "installed opfuse; docs/tutorial-new-pass.md) before the "
             "pipeline is built, so --pass-before/--pass-after can name its "
             "passes (repeatable)"),
    cl::value_desc("path.so"), cl::cat(category));
cl::list<std::string> passesBefore(
    "pass-before",
    cl::desc("Run a pass pipeline just before the pipeline's pass NAME, on "
             "what NAME runs on (each func.func for the fusion passes, the "
             "module for convert-fuse-to-gpu), e.g. "
             "--pass-before=fuse-elementwise:canonicalize (repeatable; "
             "--mlir-print-ir-after-all shows where it ran)"),
    cl::value_desc("NAME:PIPELINE"), cl::cat(category));
cl::list<std::string> passesAfter(
    "pass-after",
    cl::desc("Run a pass pipeline just after the pipeline's pass NAME, as "
             "--pass-before does before it (repeatable)"),
    cl::value_desc("NAME:PIPELINE"), cl::cat(category));
// Not in --help: lets the test suite see a compiler bug end to end (its
// exit code and message) without keeping a bug in the compiler for it.
cl::opt<bool> testInternalError(
    "test-internal-error",
    cl::desc("Testing only: fail as a compiler bug would, after fusion"),
    cl::Hidden, cl::cat(category));

const char *overview =
    "opt-fuse: the opfuse operator-fusion compiler (the driver; opfuse-opt\n"
    "runs single passes and pipelines on IR, as mlir-opt does)\n\n"
    "Reads a model in the fuse dialect (a file, or - for standard input),\n"
    "fuses its operators into GPU kernels and writes what --emit asks for;\n"
    "with --bench/--check it runs the kernels on the GPU.\n\n"
    "  opt-fuse model.mlir                      print the verified model\n"
    "  opt-fuse model.mlir --emit=ptx -o m.ptx  write the kernels' PTX\n"
    "  opt-fuse model.mlir --emit=plan          the launch plan (JSON)\n"
    "  opt-fuse model.mlir --emit=summary       kernels before -> after\n"
    "  opt-fuse model.mlir --emit=report        cost model per kernel\n"
    "  opt-fuse model.mlir --emit=roofline -o r.svg\n"
    "  opt-fuse model.mlir --emit=memory -o m.svg  the buffer plan\n"
    "  opt-fuse model.mlir --emit=graph -o g.svg   the fused graph\n"
    "  opt-fuse --calibrate -o h200.json        measure this GPU (then\n"
    "                                           --target=h200.json)\n"
    "  opt-fuse model.mlir --bench --check      time it and check numerics\n"
    "  opt-fuse model.mlir --mlir-print-ir-after-all --emit=summary\n"
    "                                           IR after every pass; "
    "mlir-opt's\n"
    "                                           --mlir-* options (timing,\n"
    "                                           statistics, debug info) are\n"
    "                                           listed by --help-hidden\n";
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // mlir-opt's --mlir-* options (IR printing, timing, statistics, threading)
  // are accepted too; --help-hidden lists them.
  opfuse::registerMlirCommandLineOptions();
  cl::HideUnrelatedOptions(category);
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->setHiddenFlag(cl::Hidden);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "opfuse opt-fuse 0.1\n"; });
  std::string help = std::string(overview) + "\n" + opfuse::describeExitCodes();
  std::string usageErrors;
  llvm::raw_string_ostream errorStream(usageErrors);
  if (!cl::ParseCommandLineOptions(argc, argv, help, &errorStream)) {
    llvm::errs() << errorStream.str();
    return opfuse::ExitUsage;
  }
  if ((calibrate || printTarget) && !inputPath.empty()) {
    llvm::errs() << "opt-fuse: error: --"
                 << (calibrate ? "calibrate" : "print-target")
                 << " takes no model (it writes a target file to -o)\n";
    return opfuse::ExitUsage;
  }
  if (inputPath.empty() && !calibrate && !printTarget) {
    llvm::errs() << "opt-fuse: error: no input file (give a path, or - for "
                    "standard input; see --help)\n";
    return opfuse::ExitUsage;
  }
  opfuse::DriverOptions options;
  if (emit.getNumOccurrences()) {
    std::optional<opfuse::EmitKind> kind = opfuse::parseEmitKind(emit);
    if (!kind) {
      llvm::errs() << "opt-fuse: error: unknown --emit value '" << emit
                   << "' (expected one of: " << opfuse::listEmitKinds()
                   << ")\n";
      return opfuse::ExitUsage;
    }
    options.emit = kind;
  }
  if (compileTo.getNumOccurrences()) {
    std::optional<opfuse::CompileStage> stage =
        opfuse::parseCompileStage(compileTo);
    if (!stage) {
      llvm::errs() << "opt-fuse: error: unknown --compile-to stage '"
                   << compileTo
                   << "' (expected one of: " << opfuse::listCompileStages()
                   << ")\n";
      return opfuse::ExitUsage;
    }
    if (emit.getNumOccurrences() || bench || check || checkFusion || autotune ||
        eachFunction || checkOnHost) {
      llvm::errs() << "opt-fuse: error: --compile-to prints the module at a "
                      "stage; it does not combine with --emit, --bench, "
                      "--check, --check-on-host, --check-fusion, --autotune or "
                      "--each-function\n";
      return opfuse::ExitUsage;
    }
    options.compileTo = stage;
  }
  if (autotuneCandidates < 1 || autotuneCandidates > 16) {
    llvm::errs() << "opt-fuse: error: --autotune-candidates must be 1 to 16\n";
    return opfuse::ExitUsage;
  }
  if (devices.getNumOccurrences() && (devices < 1 || devices > 64)) {
    llvm::errs() << "opt-fuse: error: --devices must be 1 to 64\n";
    return opfuse::ExitUsage;
  }
  if (warmup < 0 || iterations < 1) {
    llvm::errs() << "opt-fuse: error: --warmup must be >= 0 and --iters >= 1\n";
    return opfuse::ExitUsage;
  }
  options.inputPath = inputPath;
  options.outputPath = outputPath;
  options.function = function;
  options.eachFunction = eachFunction;
  options.importFormat = importFormat;
  options.inputFiles.assign(inputFiles.begin(), inputFiles.end());
  options.saveOutputsDir = saveOutputs;
  options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  opfuse::CompileOptions &compile = options.compile;
  compile.fuse = !noFuse;
  compile.explain = explain || !remarksOutputFile.empty();
  options.remarksPath = remarksOutputFile;
  compile.gemmPrologues = gemmPrologues;
  compile.overlapCollectives = overlapCollectives;
  compile.overlapSms = overlapSms;
  compile.overlapSmsGiven = overlapSms.getNumOccurrences() > 0;
  compile.planOutputs = planOutputs;
  compile.target = target;
  compile.chip = chip;
  compile.cudaToolkit = toolkit;
  compile.emitter.vectorsPerThread = vectorsPerThread;
  compile.emitter.windowRows = windowRows;
  compile.emitter.rowElementsPerThread = rowElementsPerThread;
  compile.emitter.matmulTiling = matmulTiling;
  compile.emitter.attentionTiling = attentionTiling;
  compile.emitter.allowTF32 = allowTF32;
  compile.emitter.numerics = numerics;
  compile.emitter.useTma = !noTma;
  compile.emitter.warpSpecialize = warpSpecialize;
  compile.emitter.pingPong = pingPong;
  compile.emitter.vectorStores = gemmVectorStores;
  compile.emitter.maxGridBlocks = maxGridBlocks;
  compile.emitter.earlyLaunch = earlyLaunch;
  options.calibrate = calibrate;
  options.printTarget = printTarget;
  options.autotune = autotune;
  options.autotuneCache = autotuneCache;
  options.autotuneCandidates = autotuneCandidates;
  options.checkFusion = checkFusion;
  options.bench = bench;
  options.check = check;
  options.checkOnHost = checkOnHost;
  options.checkMatmuls = checkMatmuls;
  options.warmup = warmup;
  options.iterations = iterations;
  options.cudaGraph = cudaGraph;
  options.ncclPath = ncclPath;
  options.devices = devices;
  options.json = json;
  options.seed = seed;
  options.testInternalError = testInternalError;
  options.passPlugins.assign(passPlugins.begin(), passPlugins.end());
  // Hooks keep their command-line order, before and after alike.
  std::vector<std::pair<unsigned, opfuse::PassHook>> hooks;
  auto addHooks = [&](cl::list<std::string> &list, bool after) {
    for (unsigned i = 0; i < list.size(); ++i) {
      std::string error;
      std::optional<opfuse::PassHook> hook =
          opfuse::parsePassHook(list[i], after, error);
      if (!hook) {
        llvm::errs() << "opt-fuse: error: " << error << "\n";
        return false;
      }
      hooks.emplace_back(list.getPosition(i), *hook);
    }
    return true;
  };
  if (!addHooks(passesBefore, false) || !addHooks(passesAfter, true))
    return opfuse::ExitUsage;
  llvm::sort(hooks,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &[position, hook] : hooks)
    compile.hooks.push_back(hook);
  return opfuse::runDriver(options);
}
