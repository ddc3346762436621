//===- SpmdRun.cpp - --bench and --check on several GPUs ------------------===//
//
// --devices=N on the GPU: the one compiled plan runs on GPUs 0 to N-1, one
// host thread a GPU (its own CUDA context and stream), each on its slice
// of the sharded arguments; the collective steps go through one NCCL
// communicator over all N (ncclCommInitAll). A device that fails before
// its first step stops every device before any collective waits on it.
// --check runs all N devices through the reference (interpretSpmd) and
// compares each device's outputs with its own.
//
//===----------------------------------------------------------------------===//

#include "CheckTolerance.h"
#include "GpuRun.h"
#include "Sharding.h"

#include "opfuse/Runtime/Nccl.h"

#include "llvm/Support/FormatVariadic.h"

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;

namespace opfuse {

namespace {

/// Where every device's setup meets: all continue once all have arrived,
/// none once one has failed.
class SetupBarrier {
public:
  explicit SetupBarrier(int devices) : arrived(devices, false) {}

  /// Device `device` is set up (`ok`) or failed; waits for the others
  /// unless one failed. Returns whether every device is set up.
  bool arrive(int device, bool ok) {
    std::unique_lock<std::mutex> lock(mutex);
    record(device, ok);
    changed.wait(lock, [&] { return failed || count() == arrived.size(); });
    return !failed;
  }
  /// Device `device` stopped: a device waiting at the barrier gives up.
  void fail(int device) {
    std::unique_lock<std::mutex> lock(mutex);
    record(device, false);
  }

private:
  void record(int device, bool ok) {
    arrived[device] = true;
    failed |= !ok;
    changed.notify_all();
  }
  size_t count() const { return llvm::count(arrived, true); }

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> arrived;
  bool failed = false;
};

/// What one device's thread leaves: its measurement, or why it stopped.
struct DeviceRun {
  std::unique_ptr<BenchResult> result;
  std::string error;
  int exitCode = ExitSuccess;
};

/// GPUs 0 to N-1 and, where the plan has collectives, NCCL over all N.
struct Devices {
  std::vector<std::unique_ptr<cuda::Driver>> owned;
  std::vector<cuda::Driver *> drivers;
  std::unique_ptr<Nccl> nccl;
};

/// Opens the devices of the run (GPU 0's driver is the one the process
/// keeps: --check's matmuls use it); on failure says why and returns the
/// exit code.
int openDevices(const DriverOptions &options, const LaunchPlan &plan,
                cuda::Driver &driver, Devices &devices) {
  const int count = options.devices;
  if (driver.deviceCount() < count) {
    llvm::errs() << "opt-fuse: error: --devices=" << count
                 << ", and this machine has " << driver.deviceCount()
                 << " GPU(s)\n";
    return ExitNoCollectives;
  }
  devices.drivers = {&driver};
  for (int device = 1; device < count; ++device) {
    llvm::Expected<std::unique_ptr<cuda::Driver>> opened =
        cuda::Driver::open(device);
    if (!opened) {
      llvm::errs() << "opt-fuse: error: GPU " << device << ": "
                   << llvm::toString(opened.takeError()) << "\n";
      return ExitGpuError;
    }
    devices.owned.push_back(std::move(*opened));
    devices.drivers.push_back(devices.owned.back().get());
  }
  if (!plan.collectives.empty()) {
    llvm::Expected<std::unique_ptr<Nccl>> opened =
        Nccl::open(options.ncclPath, count);
    if (!opened) {
      llvm::Error error = opened.takeError();
      const int code = exitCodeOfRun(error);
      llvm::errs() << "opt-fuse: error: " << llvm::toString(std::move(error))
                   << "\n";
      return code;
    }
    devices.nccl = std::move(*opened);
  }
  // Opening the others made theirs current on this thread.
  if (llvm::Error error = driver.makeCurrent()) {
    llvm::errs() << "opt-fuse: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitGpuError;
  }
  return ExitSuccess;
}

/// runPlan on every device at once, a thread each.
std::vector<DeviceRun>
runDevices(const DriverOptions &options, const std::string &ptx,
           const LaunchPlan &plan, const Devices &devices,
           const std::vector<std::vector<HostBuffer>> &inputs) {
  const int count = devices.drivers.size();
  BenchOptions bench;
  bench.warmup = options.warmup;
  bench.iterations = options.bench ? options.iterations : 0;
  // Several threads: no progress lines, and no graph capture of NCCL
  // calls from several threads at once (not measured yet).
  bench.progress = false;
  bench.cudaGraph = options.cudaGraph && count == 1;
  bench.communicator = devices.nccl.get();
  SetupBarrier barrier(count);
  std::vector<DeviceRun> runs(count);
  std::vector<std::thread> threads;
  for (int device = 0; device < count; ++device)
    threads.emplace_back([&, device] {
      DeviceRun &run = runs[device];
      cuda::Driver &driver = *devices.drivers[device];
      llvm::Error error = driver.makeCurrent();
      if (!error) {
        BenchOptions own = bench;
        own.rank = device;
        own.setupDone = [&, device](bool ok) {
          return barrier.arrive(device, ok);
        };
        llvm::Expected<BenchResult> result =
            runPlan(driver, ptx, plan, inputs[device], own);
        if (result) {
          run.result = std::make_unique<BenchResult>(std::move(*result));
          return;
        }
        error = result.takeError();
      }
      run.exitCode = exitCodeOfRun(error);
      run.error = llvm::toString(std::move(error));
      barrier.fail(device);
    });
  for (std::thread &thread : threads)
    thread.join();
  return runs;
}

/// Every device through the reference at once (the collectives combine
/// their tensors as NCCL's did), each device's outputs against its own.
/// Nullopt when the reference cannot run (it said why).
std::optional<std::vector<std::vector<OutputCheck>>>
checkDevices(const DriverOptions &options, func::FuncOp model,
             func::FuncOp kernels,
             const std::vector<std::vector<HostBuffer>> &inputs,
             const std::vector<DeviceRun> &runs) {
  const bool strict = options.compile.emitter.strictNumerics();
  SmallVector<SmallVector<reference::Tensor>> arguments;
  for (const std::vector<HostBuffer> &deviceInputs : inputs)
    arguments.push_back(toReferenceTensors(model, deviceInputs));
  reference::Options kernelRun;
  kernelRun.f64Accumulation = true;
  kernelRun.kernelPrecision = !strict;
  FailureOr<SmallVector<SmallVector<reference::Tensor>>> references =
      reference::interpretSpmd(kernels, arguments, kernelRun);
  if (failed(references))
    return std::nullopt;
  std::vector<std::vector<OutputCheck>> checks;
  for (auto [device, run] : llvm::enumerate(runs)) {
    // Each device's rounding scales, from its own data (collectives as on
    // one device: docs/numerics.md).
    FailureOr<SmallVector<std::optional<std::vector<double>>>> scales =
        computeErrorScales(model, arguments[device], reference::Options());
    if (failed(scales))
      return std::nullopt;
    checks.push_back(compareOutputs(model, (*references)[device], *scales,
                                    run.result->outputs,
                                    options.compile.emitter.allowTF32, strict));
  }
  return checks;
}

/// Every device's measurement and checks, as text or one JSON document.
void printDevices(const DriverOptions &options, const LaunchPlan &plan,
                  const Devices &devices, const std::vector<DeviceRun> &runs,
                  const std::vector<std::vector<OutputCheck>> *checks) {
  const std::string nccl =
      devices.nccl ? devices.nccl->version() : std::string();
  if (options.json) {
    llvm::json::Array perDevice;
    for (auto [device, run] : llvm::enumerate(runs)) {
      llvm::json::Object root =
          options.bench ? benchToJson(plan, *run.result)
                        : llvm::json::Object{{"device", run.result->device},
                                             {"function", plan.function}};
      root["rank"] = static_cast<int64_t>(device);
      if (checks)
        root["check"] = outputChecksToJson((*checks)[device]);
      perDevice.push_back(std::move(root));
    }
    llvm::json::Object root{{"devices", std::move(perDevice)}};
    if (!nccl.empty())
      root["nccl"] = nccl;
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
    return;
  }
  llvm::outs() << llvm::formatv("SPMD run on {0} GPU(s){1}\n", runs.size(),
                                nccl.empty() ? "" : " (NCCL " + nccl + ")");
  for (auto [device, run] : llvm::enumerate(runs)) {
    llvm::outs() << llvm::formatv("== GPU {0} ==\n", device);
    if (options.bench)
      printBench(llvm::outs(), plan, *run.result);
    if (checks)
      printOutputChecks(llvm::outs(), (*checks)[device]);
  }
}

} // namespace

int runSpmdOnGpu(const DriverOptions &options, func::FuncOp model,
                 func::FuncOp kernels, const std::string &ptx,
                 const LaunchPlan &plan, cuda::Driver &driver,
                 MeasuredRun *measured) {
  Devices devices;
  if (int code = openDevices(options, plan, driver, devices);
      code != ExitSuccess)
    return code;
  // The seeded global tensors, each device's slice of them.
  std::vector<PlanBuffer> local;
  for (int id : plan.inputs)
    local.push_back(plan.buffers[id]);
  std::vector<std::vector<HostBuffer>> inputs = shardInputs(
      model,
      generateInputs(globalSpecs(model, local, options.devices), options.seed),
      options.devices);

  std::vector<DeviceRun> runs = runDevices(options, ptx, plan, devices, inputs);
  int exitCode = ExitSuccess;
  for (auto [device, run] : llvm::enumerate(runs))
    if (!run.result) {
      llvm::errs() << "opt-fuse: error: GPU " << device << ": " << run.error
                   << "\n";
      if (exitCode == ExitSuccess)
        exitCode = run.exitCode;
    }
  if (exitCode != ExitSuccess)
    return exitCode;

  std::optional<std::vector<std::vector<OutputCheck>>> checks;
  if (options.check) {
    checks = checkDevices(options, model, kernels, inputs, runs);
    if (!checks)
      return ExitCheckFailed;
  }
  if (measured) {
    // The report shows GPU 0's.
    if (options.bench)
      recordMeasurement(*runs.front().result, *measured);
    if (checks)
      measured->checks = checks->front();
  } else {
    printDevices(options, plan, devices, runs, checks ? &*checks : nullptr);
  }
  if (checks)
    for (const std::vector<OutputCheck> &deviceChecks : *checks)
      if (llvm::any_of(deviceChecks,
                       [](const OutputCheck &c) { return !c.pass; }))
        return ExitCheckFailed;
  return ExitSuccess;
}

} // namespace opfuse
