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

int exitCodeOf(const llvm::Error &error) {
  return error.isA<UnsupportedPlanError>()          ? ExitUnsupported
         : error.isA<CollectivesUnavailableError>() ? ExitNoCollectives
                                                    : ExitGpuError;
}

} // namespace

int runSpmdOnGpu(const DriverOptions &options, func::FuncOp model,
                 func::FuncOp kernels, const std::string &ptx,
                 const LaunchPlan &plan, cuda::Driver &driver,
                 MeasuredRun *measured) {
  const int devices = options.devices;
  if (driver.deviceCount() < devices) {
    llvm::errs() << "opt-fuse: error: --devices=" << devices
                 << ", and this machine has " << driver.deviceCount()
                 << " GPU(s)\n";
    return ExitNoCollectives;
  }
  // GPU 0 is the driver the process keeps (--check's matmuls use it).
  std::vector<std::unique_ptr<cuda::Driver>> others;
  std::vector<cuda::Driver *> drivers = {&driver};
  for (int device = 1; device < devices; ++device) {
    llvm::Expected<std::unique_ptr<cuda::Driver>> opened =
        cuda::Driver::open(device);
    if (!opened) {
      llvm::errs() << "opt-fuse: error: GPU " << device << ": "
                   << llvm::toString(opened.takeError()) << "\n";
      return ExitGpuError;
    }
    others.push_back(std::move(*opened));
    drivers.push_back(others.back().get());
  }
  std::unique_ptr<Nccl> nccl;
  if (!plan.collectives.empty()) {
    llvm::Expected<std::unique_ptr<Nccl>> opened =
        Nccl::open(options.ncclPath, devices);
    if (!opened) {
      llvm::Error error = opened.takeError();
      const int code = exitCodeOf(error);
      llvm::errs() << "opt-fuse: error: " << llvm::toString(std::move(error))
                   << "\n";
      return code;
    }
    nccl = std::move(*opened);
  }
  if (llvm::Error error = driver.makeCurrent()) {
    llvm::errs() << "opt-fuse: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitGpuError;
  }

  // The seeded global tensors, each device's slice of them.
  std::vector<PlanBuffer> local;
  for (int id : plan.inputs)
    local.push_back(plan.buffers[id]);
  std::vector<std::vector<HostBuffer>> inputs = shardInputs(
      model, generateInputs(globalSpecs(model, local, devices), options.seed),
      devices);

  BenchOptions bench;
  bench.warmup = options.warmup;
  bench.iterations = options.bench ? options.iterations : 0;
  // Several threads: no progress lines, and no graph capture of NCCL
  // calls from several threads at once (not measured yet).
  bench.progress = false;
  bench.cudaGraph = options.cudaGraph && devices == 1;
  bench.communicator = nccl.get();
  SetupBarrier barrier(devices);
  std::vector<DeviceRun> runs(devices);
  std::vector<std::thread> threads;
  for (int device = 0; device < devices; ++device)
    threads.emplace_back([&, device] {
      DeviceRun &run = runs[device];
      if (llvm::Error error = drivers[device]->makeCurrent()) {
        run.error = llvm::toString(std::move(error));
        run.exitCode = ExitGpuError;
        barrier.fail(device);
        return;
      }
      BenchOptions own = bench;
      own.rank = device;
      own.setupDone = [&, device](bool ok) {
        return barrier.arrive(device, ok);
      };
      llvm::Expected<BenchResult> result =
          runPlan(*drivers[device], ptx, plan, inputs[device], own);
      if (!result) {
        llvm::Error error = result.takeError();
        run.exitCode = exitCodeOf(error);
        run.error = llvm::toString(std::move(error));
        barrier.fail(device);
        return;
      }
      run.result = std::make_unique<BenchResult>(std::move(*result));
    });
  for (std::thread &thread : threads)
    thread.join();
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

  // Every device through the reference at once: the collectives combine
  // their tensors as NCCL's did.
  std::vector<std::optional<std::vector<OutputCheck>>> checks(devices);
  if (options.check) {
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
      return ExitCheckFailed;
    for (int device = 0; device < devices; ++device) {
      // Each device's rounding scales, from its own data (collectives as
      // on one device: docs/numerics.md).
      FailureOr<SmallVector<std::optional<std::vector<double>>>> scales =
          computeErrorScales(model, arguments[device], reference::Options());
      if (failed(scales))
        return ExitCheckFailed;
      checks[device] = compareOutputs(
          model, (*references)[device], *scales, runs[device].result->outputs,
          options.compile.emitter.allowTF32, strict);
    }
  }

  const BenchResult &first = *runs.front().result;
  if (measured) {
    if (options.bench) {
      measured->device = first.device;
      measured->total = {first.total.p50, first.total.p99};
      measured->stream = {first.stream.p50, first.stream.p99};
      measured->allocatedBytes = first.bytesAllocated;
      for (const LatencyStats &kernel : first.kernels)
        measured->kernels.push_back({kernel.p50, kernel.p99});
    }
    measured->checks = checks.front();
  } else if (options.json) {
    llvm::json::Array perDevice;
    for (int device = 0; device < devices; ++device) {
      const BenchResult &result = *runs[device].result;
      llvm::json::Object root =
          options.bench ? benchToJson(plan, result)
                        : llvm::json::Object{{"device", result.device},
                                             {"function", plan.function}};
      root["rank"] = device;
      if (checks[device])
        root["check"] = outputChecksToJson(*checks[device]);
      perDevice.push_back(std::move(root));
    }
    llvm::json::Object root{{"devices", std::move(perDevice)}};
    if (nccl)
      root["nccl"] = nccl->version();
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
  } else {
    llvm::outs() << llvm::formatv("SPMD run on {0} GPU(s){1}\n", devices,
                                  nccl ? " (NCCL " + nccl->version() + ")"
                                       : std::string());
    for (int device = 0; device < devices; ++device) {
      llvm::outs() << llvm::formatv("== GPU {0} ==\n", device);
      if (options.bench)
        printBench(llvm::outs(), plan, *runs[device].result);
      if (checks[device])
        printOutputChecks(llvm::outs(), *checks[device]);
    }
  }
  for (const std::optional<std::vector<OutputCheck>> &deviceChecks : checks)
    if (deviceChecks && llvm::any_of(*deviceChecks, [](const OutputCheck &c) {
          return !c.pass;
        }))
      return ExitCheckFailed;
  return ExitSuccess;
}

} // namespace opfuse
