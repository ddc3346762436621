//===- Spmd.cpp - One plan on several GPUs at once ------------------------===//
//
// Cuts the inputs of an SPMD run device by device, opens its GPUs and NCCL,
// and runs the plan on every device in a thread of its own, with a barrier
// after setup so that no device waits in a collective for one that failed.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Spmd.h"
#include "opfuse/Runtime/StreamSchedule.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace opfuse {

namespace {

int64_t axisOf(llvm::ArrayRef<int64_t> axes, size_t input) {
  return input < axes.size() ? axes[input] : -1;
}

} // namespace

std::vector<PlanBuffer> globalInputSpecs(const std::vector<PlanBuffer> &local,
                                         llvm::ArrayRef<int64_t> axes,
                                         int64_t devices) {
  std::vector<PlanBuffer> global = local;
  for (auto [index, spec] : llvm::enumerate(global))
    if (int64_t axis = axisOf(axes, index); axis >= 0)
      spec.shape[axis] *= devices;
  return global;
}

std::vector<std::vector<HostBuffer>>
shardInputs(const std::vector<HostBuffer> &global, llvm::ArrayRef<int64_t> axes,
            int64_t devices) {
  std::vector<std::vector<HostBuffer>> perDevice(devices);
  for (auto [index, tensor] : llvm::enumerate(global)) {
    const int64_t axis = axisOf(axes, index);
    for (int64_t device = 0; device < devices; ++device) {
      if (axis < 0) {
        perDevice[device].push_back(tensor);
        continue;
      }
      // Rows of the slice: `outer` runs of `length` contiguous bytes.
      std::vector<int64_t> shape = tensor.shape;
      shape[axis] /= devices;
      HostBuffer slice = makeHostBuffer(tensor.dtype, shape);
      int64_t outer = 1, inner = dtypeBytes(tensor.dtype);
      for (int64_t d = 0; d < axis; ++d)
        outer *= shape[d];
      for (size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
      const int64_t length = shape[axis] * inner;
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(slice.bytes.data() + o * length,
                    tensor.bytes.data() + (o * devices + device) * length,
                    length);
      perDevice[device].push_back(std::move(slice));
    }
  }
  return perDevice;
}

llvm::Expected<DeviceSet> openDeviceSet(cuda::Driver &first, int devices,
                                        const LaunchPlan &plan,
                                        const std::string &ncclPath) {
  if (first.deviceCount() < devices)
    return llvm::make_error<CollectivesUnavailableError>(
        "--devices=" + std::to_string(devices) + ", and this machine has " +
        std::to_string(first.deviceCount()) + " GPU(s)");
  DeviceSet set;
  set.drivers = {&first};
  for (int device = 1; device < devices; ++device) {
    llvm::Expected<std::unique_ptr<cuda::Driver>> opened =
        cuda::Driver::open(device);
    if (!opened)
      return llvm::createStringError("GPU " + std::to_string(device) + ": " +
                                     llvm::toString(opened.takeError()));
    set.owned.push_back(std::move(*opened));
    set.drivers.push_back(set.owned.back().get());
  }
  if (!plan.collectives.empty()) {
    // Collectives beside the kernels find only the SMs the chunked GEMMs
    // leave them: NCCL is held to as many CTAs (NCCL_MAX_CTAS, read when
    // the communicator is set up), unless the user set it.
    if (int ctas = overlapCtas(plan); ctas > 0)
      setenv("NCCL_MAX_CTAS", std::to_string(ctas).c_str(), /*overwrite=*/0);
    llvm::Expected<std::unique_ptr<Nccl>> opened =
        Nccl::open(ncclPath, devices);
    if (!opened)
      return opened.takeError();
    set.nccl = std::move(*opened);
  }
  // Opening the others made theirs current on this thread.
  if (llvm::Error error = first.makeCurrent())
    return std::move(error);
  return std::move(set);
}

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

} // namespace

std::vector<DeviceRun>
runPlanOnDevices(const DeviceSet &devices, const std::string &ptx,
                 const LaunchPlan &plan,
                 const std::vector<std::vector<HostBuffer>> &inputs,
                 const BenchOptions &options) {
  const int count = devices.drivers.size();
  BenchOptions shared = options;
  shared.progress = false;
  shared.cudaGraph = options.cudaGraph && count == 1;
  shared.communicator = devices.nccl.get();
  SetupBarrier barrier(count);
  // The first device to fail aborts NCCL, so that the others' collectives
  // stop instead of waiting for it; they then fail too, and say why.
  std::atomic<int> firstFailure{-1};
  std::vector<DeviceRun> runs(count);
  std::vector<std::thread> threads;
  for (int device = 0; device < count; ++device)
    threads.emplace_back([&, device] {
      DeviceRun &run = runs[device];
      cuda::Driver &driver = *devices.drivers[device];
      llvm::Error error = driver.makeCurrent();
      if (!error) {
        BenchOptions own = shared;
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
      run.failure = classifyRunFailure(error);
      run.error = llvm::toString(std::move(error));
      int none = -1;
      if (firstFailure.compare_exchange_strong(none, device)) {
        if (devices.nccl)
          devices.nccl->abort();
      } else {
        run.error = llvm::formatv("stopped after GPU {0} failed: {1}",
                                  firstFailure.load(), run.error)
                        .str();
      }
      barrier.fail(device);
    });
  for (std::thread &thread : threads)
    thread.join();
  return runs;
}

llvm::json::Object spmdRunToJson(
    const LaunchPlan &plan, const DeviceSet &devices,
    const std::vector<DeviceRun> &runs, bool bench,
    llvm::function_ref<void(size_t, llvm::json::Object &)> addToDevice) {
  llvm::json::Array perDevice;
  for (auto [device, run] : llvm::enumerate(runs)) {
    llvm::json::Object object =
        bench ? benchToJson(plan, *run.result)
              : llvm::json::Object{{"device", run.result->device},
                                   {"function", plan.function}};
    object["rank"] = static_cast<int64_t>(device);
    if (addToDevice)
      addToDevice(device, object);
    perDevice.push_back(std::move(object));
  }
  llvm::json::Object root{{"devices", std::move(perDevice)}};
  if (devices.nccl)
    root["nccl"] = devices.nccl->version();
  return root;
}

std::string spmdRunHeading(const DeviceSet &devices, size_t count) {
  return llvm::formatv("SPMD run on {0} GPU(s){1}", count,
                       devices.nccl ? " (NCCL " + devices.nccl->version() + ")"
                                    : std::string())
      .str();
}

} // namespace opfuse
