//===- opfuse-run.cpp - Run a compiled plan without the compiler ----------===//
//
// Loads PTX and a launch plan written by opt-fuse and runs or benchmarks
// them with the runtime library alone (no MLIR linked).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/NamedIo.h"
#include "opfuse/Runtime/Nccl.h"
#include "opfuse/Runtime/Spmd.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
using namespace opfuse;

namespace {
cl::OptionCategory category("opfuse-run options");
cl::opt<std::string> ptxPath(cl::Positional, cl::desc("<kernels.ptx>"),
                             cl::cat(category));
cl::opt<std::string> planPath(cl::Positional, cl::desc("<plan.json>"),
                              cl::cat(category));
cl::opt<bool> bench("bench", cl::desc("Benchmark the plan"), cl::cat(category));
cl::opt<int> warmup("warmup", cl::desc("Untimed runs before timing (10)"),
                    cl::init(10), cl::cat(category));
cl::opt<int> iterations("iters", cl::desc("Timed runs (100)"), cl::init(100),
                        cl::cat(category));
cl::opt<bool> cudaGraph(
    "cuda-graph",
    cl::desc("Replay the plan as one CUDA graph (default on); --bench times "
             "runs both ways"),
    cl::init(true), cl::cat(category));
cl::opt<bool> earlyLaunch(
    "early-launch",
    cl::desc("Launch the kernels the plan marks early_launch while the "
             "kernel before them ends (programmatic dependent launch, sm_90; "
             "default on); false launches in stream order, for comparisons"),
    cl::init(true), cl::cat(category));
cl::opt<std::string> ncclPath(
    "nccl",
    cl::desc("libnccl.so.2 for plans with collective steps (default: the "
             "library path, then PyTorch's NVIDIA wheels)"),
    cl::value_desc("path"), cl::cat(category));
cl::opt<bool> json("json", cl::desc("Print the measurement as JSON"),
                   cl::cat(category));
cl::opt<int> devices(
    "devices",
    cl::desc("Run the plan SPMD on GPUs 0 to N-1 (1 to 64), a thread each, "
             "its collectives over one NCCL communicator; inputs marked in "
             "the plan's input_shards are cut from global tensors N times "
             "as long (--inputs gives the global tensors), and "
             "--save-outputs writes DIR/gpuK/NAME.npy"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<unsigned long long> seed("seed",
                                 cl::desc("Seed of the generated inputs (1)"),
                                 cl::init(1), cl::cat(category));
cl::list<std::string> inputFiles(
    "inputs",
    cl::desc("An input's values from a NumPy .npy file instead of seeded "
             "ones; NAME is the model's input name (the plan's "
             "input_names, an ONNX model's) or argN (repeat for several)"),
    cl::value_desc("NAME=FILE.npy"), cl::cat(category));
cl::opt<std::string> saveOutputsDir(
    "save-outputs",
    cl::desc("Write every output of the run to DIR/NAME.npy (its name in "
             "the plan, or resultN); bf16 as f32"),
    cl::value_desc("DIR"), cl::cat(category));

/// A run's measurement (--bench), or each output's element count and sum.
void printRun(const LaunchPlan &plan, const BenchResult &result) {
  if (bench) {
    if (json)
      printBenchJson(llvm::outs(), plan, result);
    else
      printBench(llvm::outs(), plan, result);
    return;
  }
  for (auto [index, output] : llvm::enumerate(result.outputs)) {
    double sum = 0;
    for (int64_t i = 0; i < output.elements(); ++i)
      sum += output.get(i);
    llvm::outs() << llvm::formatv("output #{0}: {1} elements, sum {2:e6}\n",
                                  index, output.elements(), sum);
  }
}

/// --devices: the plan on GPUs 0 to N-1, each device's result in turn
/// (JSON: one document, "devices" in rank order).
int runSpmd(cuda::Driver &driver, const std::string &ptx,
            const LaunchPlan &plan,
            const std::vector<std::vector<HostBuffer>> &inputs,
            const std::vector<std::string> &outputNames,
            const BenchOptions &options) {
  llvm::Expected<DeviceSet> set =
      openDeviceSet(driver, devices, plan, options.ncclPath);
  if (!set)
    return reportRunError("opfuse-run", set.takeError());
  std::vector<DeviceRun> runs =
      runPlanOnDevices(*set, ptx, plan, inputs, options);
  if (int exitCode = reportDeviceFailures("opfuse-run", runs);
      exitCode != ExitSuccess)
    return exitCode;
  for (auto [device, run] : llvm::enumerate(runs))
    if (NamedIoResult saved =
            saveOutputFiles(saveOutputsDir.empty() ? std::string()
                                                   : saveOutputsDir + "/gpu" +
                                                         std::to_string(device),
                            outputNames, run.result->outputs)) {
      llvm::errs() << "opfuse-run: error: " << saved.message << "\n";
      return saved.exitCode();
    }
  if (bench && json) {
    llvm::outs() << llvm::formatv("{0:2}",
                                  llvm::json::Value(spmdRunToJson(
                                      plan, *set, runs, /*bench=*/true)))
                 << "\n";
    return ExitSuccess;
  }
  llvm::outs() << spmdRunHeading(*set, runs.size()) << "\n";
  for (auto [device, run] : llvm::enumerate(runs)) {
    llvm::outs() << llvm::formatv("== GPU {0} ==\n", device);
    printRun(plan, *run.result);
  }
  return ExitSuccess;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  std::string help =
      std::string("opfuse-run: run opt-fuse's PTX and launch plan\n\n"
                  "  opfuse-run model.ptx model.plan.json --bench\n"
                  "  opfuse-run model.ptx model.plan.json --inputs x=x.npy "
                  "--save-outputs out/\n\n") +
      describeExitCodes();
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (!cl::ParseCommandLineOptions(argc, argv, help, &errorStream)) {
    llvm::errs() << errorStream.str();
    return ExitUsage;
  }
  if (ptxPath.empty() || planPath.empty()) {
    llvm::errs() << "opfuse-run: error: expected a PTX file and a plan file "
                    "(see --help)\n";
    return ExitUsage;
  }
  auto ptx = llvm::MemoryBuffer::getFile(ptxPath);
  auto planText = llvm::MemoryBuffer::getFile(planPath);
  for (auto [path, buffer] :
       {std::pair{&ptxPath, &ptx}, {&planPath, &planText}})
    if (!*buffer) {
      llvm::errs() << "opfuse-run: error: cannot read '" << *path
                   << "': " << buffer->getError().message() << "\n";
      return ExitIO;
    }
  llvm::Expected<LaunchPlan> plan = parsePlanJson((*planText)->getBuffer());
  if (!plan) {
    llvm::errs() << "opfuse-run: error: " << planPath << ": "
                 << llvm::toString(plan.takeError()) << "\n";
    return ExitInvalidInput;
  }
  if (std::optional<std::string> why =
          checkPlanKernels(*plan, (*ptx)->getBuffer())) {
    llvm::errs() << "opfuse-run: error: " << planPath
                 << ": invalid launch plan: " << *why << " (" << ptxPath
                 << ")\n";
    return ExitInvalidInput;
  }
  if (devices < 0 || devices > 64) {
    llvm::errs() << "opfuse-run: error: --devices=" << devices
                 << " is not a device count from 1 to 64\n";
    return ExitUsage;
  }
  if (devices > 0 && plan->devicesSpanned() > 1 &&
      devices != plan->devicesSpanned()) {
    llvm::errs() << "opfuse-run: error: --devices=" << devices
                 << ", but the plan's collectives span "
                 << plan->devicesSpanned() << " devices\n";
    return ExitUsage;
  }
  // Input files are read before the GPU is opened: their mistakes cost
  // nothing and are the same on a machine without one. An SPMD run reads
  // the global tensors.
  const int64_t count = std::max(int(devices), 1);
  std::vector<PlanBuffer> local;
  for (int id : plan->inputs)
    local.push_back(plan->buffers[id]);
  std::vector<HostBuffer> inputs =
      generateInputs(globalInputSpecs(local, plan->inputShards, count), seed);
  std::vector<std::string> inputNames, outputNames;
  for (size_t i = 0; i < plan->inputs.size(); ++i)
    inputNames.push_back(plan->inputName(i));
  for (size_t i = 0; i < plan->outputs.size(); ++i)
    outputNames.push_back(plan->outputName(i));
  if (NamedIoResult loaded = loadInputFiles(inputFiles, inputNames, inputs)) {
    llvm::errs() << "opfuse-run: error: " << loaded.message << "\n";
    return loaded.exitCode();
  }
  llvm::Expected<std::unique_ptr<cuda::Driver>> driver = cuda::Driver::open();
  if (!driver) {
    bool unavailable = driver.errorIsA<cuda::UnavailableError>();
    llvm::errs() << "opfuse-run: error: " << llvm::toString(driver.takeError())
                 << "\n";
    return unavailable ? ExitNoGpu : ExitGpuError;
  }
  BenchOptions options;
  options.warmup = warmup;
  options.iterations = bench ? int(iterations) : 0;
  options.progress = bench && llvm::sys::Process::StandardErrIsDisplayed();
  options.cudaGraph = cudaGraph;
  options.earlyLaunch = earlyLaunch;
  options.ncclPath = ncclPath;
  if (devices > 0)
    return runSpmd(**driver, (*ptx)->getBuffer().str(), *plan,
                   shardInputs(inputs, plan->inputShards, count), outputNames,
                   options);
  llvm::Expected<BenchResult> result =
      runPlan(**driver, (*ptx)->getBuffer().str(), *plan, inputs, options);
  if (!result)
    return reportRunError("opfuse-run", result.takeError());
  if (NamedIoResult saved =
          saveOutputFiles(saveOutputsDir, outputNames, result->outputs)) {
    llvm::errs() << "opfuse-run: error: " << saved.message << "\n";
    return saved.exitCode();
  }
  printRun(*plan, *result);
  return ExitSuccess;
}
