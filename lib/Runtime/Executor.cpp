//===- Executor.cpp - Run a launch plan on the GPU and time it ------------===//

#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/Nccl.h"
#include "opfuse/Runtime/StreamSchedule.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace opfuse {

using cuda::CUdeviceptr;

LatencyStats summarize(std::vector<double> samples) {
  LatencyStats stats;
  if (samples.empty())
    return stats;
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) {
    size_t index =
        std::min(samples.size() - 1, size_t(std::ceil(q * samples.size())) - 1);
    return samples[index];
  };
  stats.p50 = at(0.50);
  stats.p99 = at(0.99);
  stats.min = samples.front();
  double sum = 0;
  for (double s : samples)
    sum += s;
  stats.mean = sum / samples.size();
  return stats;
}

namespace {

/// Device buffers freed on every exit path.
struct DeviceBuffers {
  cuda::Driver &driver;
  std::vector<CUdeviceptr> pointers;
  ~DeviceBuffers() {
    for (CUdeviceptr p : pointers)
      driver.release(p);
  }
};

/// An instantiated CUDA graph, destroyed with its holder.
struct GraphExec {
  cuda::Driver &driver;
  cuda::CUgraphExec exec;
  ~GraphExec() { driver.destroyGraph(exec); }
};

struct LoadedModule {
  cuda::Driver &driver;
  cuda::CUmodule module = nullptr;
  ~LoadedModule() { driver.unloadModule(module); }
};

struct Events {
  cuda::Driver &driver;
  cuda::CUevent start = nullptr, end = nullptr;
  ~Events() {
    driver.destroyEvent(start);
    driver.destroyEvent(end);
  }
};

void progress(const BenchOptions &options, const char *what, int done,
              int total) {
  if (!options.progress)
    return;
  llvm::errs() << llvm::formatv("\r[bench] {0} {1}/{2}", what, done, total);
  if (done == total)
    llvm::errs() << "\n";
}

/// Times `body` `iterations` times after `warmup` runs, in microseconds.
llvm::Expected<std::vector<double>>
timeRepeated(cuda::Driver &driver, Events &events, int warmup, int iterations,
             const BenchOptions &options, const char *what,
             llvm::function_ref<llvm::Error()> body) {
  for (int i = 0; i < warmup; ++i)
    if (llvm::Error error = body())
      return std::move(error);
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i) {
    if (llvm::Error error = driver.record(events.start))
      return std::move(error);
    if (llvm::Error error = body())
      return std::move(error);
    if (llvm::Error error = driver.record(events.end))
      return std::move(error);
    llvm::Expected<float> ms = driver.elapsed(events.start, events.end);
    if (!ms)
      return ms.takeError();
    samples.push_back(*ms * 1000.0);
    if (i % 10 == 9 || i + 1 == iterations)
      progress(options, what, i + 1, iterations);
  }
  return samples;
}

llvm::Error createEvents(cuda::Driver &driver, Events &events) {
  for (cuda::CUevent *event : {&events.start, &events.end}) {
    llvm::Expected<cuda::CUevent> created = driver.createEvent();
    if (!created)
      return created.takeError();
    *event = *created;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<double>>
timeWithEvents(cuda::Driver &driver, int warmup, int iterations,
               llvm::function_ref<llvm::Error()> body) {
  Events events{driver};
  if (llvm::Error error = createEvents(driver, events))
    return std::move(error);
  return timeRepeated(driver, events, warmup, iterations, BenchOptions(), "",
                      body);
}

namespace {

/// The plan's buffers on the device: one allocation for the arena, one
/// for each buffer outside it; constants and inputs uploaded.
llvm::Error allocateBuffers(cuda::Driver &driver, const LaunchPlan &plan,
                            const std::vector<HostBuffer> &inputs,
                            DeviceBuffers &allocations,
                            std::vector<CUdeviceptr> &pointers,
                            BenchResult &result) {
  CUdeviceptr arena = 0;
  if (plan.arena.bytes > 0) {
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(plan.arena.bytes);
    if (!pointer)
      return pointer.takeError();
    allocations.pointers.push_back(arena = *pointer);
    result.bytesAllocated += plan.arena.bytes;
  }
  for (const PlanBuffer &buffer : plan.buffers) {
    if (buffer.offset >= 0 && arena) {
      pointers.push_back(arena + buffer.offset);
      continue;
    }
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(buffer.bytes());
    if (!pointer)
      return pointer.takeError();
    allocations.pointers.push_back(*pointer);
    pointers.push_back(*pointer);
    result.bytesAllocated += buffer.bytes();
  }
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.role == BufferRole::Constant)
      if (llvm::Error error = driver.copyToDevice(
              pointers[buffer.id], buffer.data.data(), buffer.data.size()))
        return error;
  for (auto [position, id] : llvm::enumerate(plan.inputs))
    if (llvm::Error error =
            driver.copyToDevice(pointers[id], inputs[position].bytes.data(),
                                inputs[position].bytes.size()))
      return error;
  return llvm::Error::success();
}

/// Each kernel's parameters: the buffers' device pointers, by value, then
/// pointers to its tensor maps, encoded for the buffers' addresses and
/// stored on the device (128 bytes each, in one allocation), or a split-K
/// kernel's workspace and counters. The steps run one after another, so
/// every split-K kernel shares one workspace and one set of counters,
/// zeroed here once; each kernel leaves its counters zero.
llvm::Error buildArguments(cuda::Driver &driver, const LaunchPlan &plan,
                           const std::vector<CUdeviceptr> &pointers,
                           DeviceBuffers &allocations,
                           std::vector<std::vector<CUdeviceptr>> &argValues,
                           BenchResult &result) {
  size_t numMaps = 0;
  int64_t workspaceBytes = 0, counters = 0;
  for (const PlanKernel &kernel : plan.kernels) {
    numMaps += kernel.tensorMaps.size();
    if (kernel.splitK > 1) {
      workspaceBytes = std::max(workspaceBytes, kernel.workspaceBytes);
      counters = std::max(counters, kernel.splitCounters);
    }
  }
  CUdeviceptr maps = 0, workspace = 0, splitCounters = 0;
  if (numMaps > 0) {
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(numMaps * 128);
    if (!pointer)
      return pointer.takeError();
    allocations.pointers.push_back(maps = *pointer);
  }
  if (workspaceBytes > 0) {
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(workspaceBytes);
    if (!pointer)
      return pointer.takeError();
    allocations.pointers.push_back(workspace = *pointer);
    pointer = driver.allocate(4 * counters);
    if (!pointer)
      return pointer.takeError();
    allocations.pointers.push_back(splitCounters = *pointer);
    if (llvm::Error error = driver.memsetAsync(splitCounters, 0, 4 * counters))
      return error;
    result.bytesAllocated += workspaceBytes + 4 * counters;
  }
  size_t mapIndex = 0;
  for (const PlanKernel &kernel : plan.kernels) {
    std::vector<CUdeviceptr> values;
    for (int id : kernel.args)
      values.push_back(pointers[id]);
    for (const PlanTensorMap &map : kernel.tensorMaps) {
      alignas(64) uint8_t encoded[128];
      if (llvm::Error error = driver.encodeTensorMap(
              encoded, plan.buffers[map.buffer].dtype == DType::BF16,
              pointers[map.buffer] + map.offset, map.dims, map.strides,
              map.box))
        return error;
      CUdeviceptr address = maps + 128 * mapIndex++;
      if (llvm::Error error =
              driver.copyToDevice(address, encoded, sizeof(encoded)))
        return error;
      values.push_back(address);
    }
    if (kernel.splitK > 1) {
      values.push_back(workspace);
      values.push_back(splitCounters);
    }
    argValues.push_back(std::move(values));
  }
  return llvm::Error::success();
}

/// The module's kernels, allowed the dynamic shared memory they ask for.
llvm::Expected<std::vector<cuda::CUfunction>>
loadKernels(cuda::Driver &driver, cuda::CUmodule module,
            const LaunchPlan &plan) {
  llvm::Expected<int> maxShared =
      driver.attribute(cuda::DeviceAttribute::MaxSharedMemoryPerBlockOptin);
  if (!maxShared)
    return maxShared.takeError();
  if (std::optional<std::string> why = checkPlanSharedMemory(plan, *maxShared))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), *why);
  std::vector<cuda::CUfunction> functions;
  for (const PlanKernel &kernel : plan.kernels) {
    llvm::Expected<cuda::CUfunction> function =
        driver.getFunction(module, kernel.entryName());
    if (!function)
      return function.takeError();
    if (kernel.sharedBytes > 48 * 1024)
      if (llvm::Error error =
              driver.setSharedMemory(*function, kernel.sharedBytes))
        return std::move(error);
    functions.push_back(*function);
  }
  return functions;
}

/// The yardstick: a device-to-device copy moving as many bytes as the
/// plan (half read, half written), at least 256 MiB so it runs at full
/// bandwidth; its read+write GB/s.
llvm::Expected<double> timeCopy(cuda::Driver &driver, Events &events,
                                const BenchOptions &options,
                                int64_t bytesMoved) {
  size_t copyBytes = std::max<int64_t>(bytesMoved / 2, 256ll << 20);
  copyBytes = std::min<size_t>(copyBytes, size_t(2) << 30);
  DeviceBuffers copy{driver, {}};
  for (int i = 0; i < 2; ++i) {
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(copyBytes);
    if (!pointer)
      return pointer.takeError();
    copy.pointers.push_back(*pointer);
  }
  llvm::Expected<std::vector<double>> copies = timeRepeated(
      driver, events, options.warmup, options.iterations, options, "copy", [&] {
        return driver.copyOnDevice(copy.pointers[1], copy.pointers[0],
                                   copyBytes);
      });
  if (!copies)
    return copies.takeError();
  LatencyStats copyStats = summarize(*copies);
  return 2.0 * copyBytes / (copyStats.p50 * 1e3);
}

} // namespace

char UnsupportedPlanError::ID = 0;

RunFailure classifyRunFailure(const llvm::Error &error) {
  return error.isA<UnsupportedPlanError>() ? RunFailure::UnsupportedPlan
         : error.isA<CollectivesUnavailableError>()
             ? RunFailure::CollectivesUnavailable
             : RunFailure::Gpu;
}

namespace {

/// NCCL with a communicator of one rank when the plan has collective
/// steps (null otherwise). A plan whose collectives span more devices, one
/// device's program of a multi-GPU run, is refused before anything is
/// allocated.
llvm::Expected<std::unique_ptr<Nccl>>
openCollectives(cuda::Driver &driver, const LaunchPlan &plan,
                const BenchOptions &options) {
  if (options.communicator) {
    // An SPMD run's: every collective spans all of its devices.
    for (const PlanCollective &collective : plan.collectives)
      if (collective.devices != options.communicator->ranks())
        return llvm::make_error<UnsupportedPlanError>(
            "the plan's " + collectiveName(collective.kind).str() + " spans " +
            std::to_string(collective.devices) + " devices, and the run has " +
            std::to_string(options.communicator->ranks()));
    return nullptr;
  }
  for (const PlanCollective &collective : plan.collectives) {
    if (collective.devices == 1)
      continue;
    const std::string what = "the plan's " +
                             collectiveName(collective.kind).str() + " spans " +
                             std::to_string(collective.devices) + " devices";
    if (driver.deviceCount() < collective.devices)
      return llvm::make_error<CollectivesUnavailableError>(
          what + ", and this machine has " +
          std::to_string(driver.deviceCount()) + " GPU(s)");
    return llvm::make_error<UnsupportedPlanError>(
        what + "; runs over several GPUs are not built yet (a plan runs on "
               "one GPU, with a communicator of one rank)");
  }
  if (plan.collectives.empty())
    return nullptr;
  return Nccl::open(options.ncclPath, /*ranks=*/1);
}

/// What `runSteps` queues, recorded once as a CUDA graph and instantiated.
/// Kernel arguments are the plan's fixed buffers, so new inputs are copied
/// into them between replays.
llvm::Expected<cuda::CUgraphExec>
captureGraph(cuda::Driver &driver, llvm::function_ref<llvm::Error()> runSteps) {
  if (llvm::Error error = driver.beginCapture())
    return std::move(error);
  llvm::Error captured = runSteps();
  // The capture ends whatever happened, to give the stream back.
  llvm::Expected<cuda::CUgraphExec> exec = driver.endCapture();
  if (!captured)
    return exec;
  if (exec)
    driver.destroyGraph(*exec);
  else
    llvm::consumeError(exec.takeError());
  return std::move(captured);
}

/// Queues a plan's steps: kernels, copies and memsets on the kernels'
/// stream, collectives there too or, where the plan puts them beside the
/// kernels (scheduleStreams: the chunks of a windowed layer), on a second
/// stream forked from the kernels' stream by an event recorded where they
/// are queued and joined by the event they record when done, before the
/// first later step that touches their memory.
class StepRunner {
public:
  StepRunner(cuda::Driver &driver, const LaunchPlan &plan,
             const BenchOptions &options, Nccl *nccl,
             const std::vector<cuda::CUfunction> &functions,
             const std::vector<CUdeviceptr> &pointers,
             std::vector<std::vector<void *>> &argPointers)
      : driver(driver), plan(plan), options(options), nccl(nccl),
        functions(functions), pointers(pointers), argPointers(argPointers),
        schedule(scheduleStreams(plan)) {}
  ~StepRunner() {
    for (cuda::CUevent event : fork)
      driver.destroyEvent(event);
    for (cuda::CUevent event : done)
      driver.destroyEvent(event);
  }

  /// Kernel k launches early when the step before it is a kernel, which
  /// it may then overlap, and the plan, the options and the driver allow.
  bool launchesEarly(size_t k, bool afterKernel) const {
    return afterKernel && plan.kernels[k].earlyLaunch && options.earlyLaunch &&
           driver.hasEarlyLaunch();
  }

  llvm::Error launch(size_t k, bool afterKernel) {
    const PlanKernel &kernel = plan.kernels[k];
    return driver.launch(functions[k], kernel.grid.data(), kernel.block.data(),
                         kernel.sharedBytes, argPointers[k].data(),
                         launchesEarly(k, afterKernel));
  }

  /// The side stream and its events, where the plan overlaps, the options
  /// allow it and the driver has streams of its own.
  llvm::Error setUpOverlap() {
    if (!options.overlapCollectives || !schedule.overlaps() ||
        !driver.hasGraphs())
      return llvm::Error::success();
    llvm::Expected<cuda::CUstream> stream = driver.getSideStream();
    if (!stream)
      return stream.takeError();
    side = *stream;
    fork.assign(schedule.beside.size(), nullptr);
    done.assign(schedule.beside.size(), nullptr);
    for (size_t s = 0; s < schedule.beside.size(); ++s) {
      if (!schedule.beside[s])
        continue;
      for (cuda::CUevent *slot : {&fork[s], &done[s]}) {
        llvm::Expected<cuda::CUevent> event =
            driver.createEvent(/*timing=*/false);
        if (!event)
          return event.takeError();
        *slot = *event;
      }
    }
    overlap = true;
    return llvm::Error::success();
  }

  int overlappedSteps() const {
    return side ? std::count(schedule.beside.begin(), schedule.beside.end(),
                             true)
                : 0;
  }

  /// Every step in order.
  llvm::Error run() {
    bool afterKernel = false;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      const PlanStep &step = plan.steps[s];
      if (overlap) {
        for (size_t earlier : schedule.waits[s]) {
          if (llvm::Error error =
                  driver.waitFor(driver.getStream(), done[earlier]))
            return error;
          afterKernel = false;
        }
        if (schedule.beside[s]) {
          if (llvm::Error error = runBeside(s))
            return error;
          afterKernel = false;
          continue;
        }
      }
      if (llvm::Error error = runOne(step, afterKernel))
        return error;
      afterKernel = step.kind == StepKind::Kernel;
    }
    if (overlap)
      for (size_t last : schedule.joinAtEnd)
        if (llvm::Error error = driver.waitFor(driver.getStream(), done[last]))
          return error;
    return llvm::Error::success();
  }

  /// Whether collectives run beside the kernels (off: every step on the
  /// kernels' stream, to time what the overlap hides).
  bool overlap = false;

private:
  llvm::Error runOne(const PlanStep &step, bool afterKernel) {
    switch (step.kind) {
    case StepKind::Kernel:
      return launch(step.index, afterKernel);
    case StepKind::Copy: {
      const PlanCopy &copy = plan.copies[step.index];
      return driver.copyOnDeviceAsync(pointers[copy.dst], pointers[copy.src],
                                      plan.buffers[copy.src].bytes());
    }
    case StepKind::Memset: {
      const PlanMemset &memset = plan.memsets[step.index];
      return driver.memsetAsync(pointers[memset.buffer], memset.value,
                                plan.buffers[memset.buffer].bytes());
    }
    case StepKind::Collective:
      return runCollective(plan.collectives[step.index], driver.getStream());
    }
    return llvm::Error::success();
  }

  llvm::Error runCollective(const PlanCollective &collective,
                            cuda::CUstream stream) {
    return nccl->run(collective, plan, pointers[collective.input],
                     pointers[collective.output], stream, options.rank);
  }

  /// Collective step `s` on the side stream, after what is queued before it.
  llvm::Error runBeside(size_t s) {
    if (llvm::Error error = driver.recordOn(fork[s], driver.getStream()))
      return error;
    if (llvm::Error error = driver.waitFor(side, fork[s]))
      return error;
    if (llvm::Error error =
            runCollective(plan.collectives[plan.steps[s].index], side))
      return error;
    return driver.recordOn(done[s], side);
  }

  cuda::Driver &driver;
  const LaunchPlan &plan;
  const BenchOptions &options;
  Nccl *nccl;
  const std::vector<cuda::CUfunction> &functions;
  const std::vector<CUdeviceptr> &pointers;
  std::vector<std::vector<void *>> &argPointers;
  const StreamSchedule schedule;
  cuda::CUstream side = nullptr;
  std::vector<cuda::CUevent> fork, done;
};

/// The plan's outputs, from the device into `result`.
llvm::Error copyOutputs(cuda::Driver &driver, const LaunchPlan &plan,
                        const std::vector<CUdeviceptr> &pointers,
                        BenchResult &result) {
  for (int id : plan.outputs) {
    HostBuffer output =
        makeHostBuffer(plan.buffers[id].dtype, plan.buffers[id].shape);
    if (llvm::Error error = driver.copyToHost(output.bytes.data(), pointers[id],
                                              output.bytes.size()))
      return error;
    result.outputs.push_back(std::move(output));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<BenchResult>
runPlan(cuda::Driver &driver, const std::string &ptx, const LaunchPlan &plan,
        const std::vector<HostBuffer> &inputs, const BenchOptions &options) {
  llvm::Expected<std::unique_ptr<Nccl>> ownNccl =
      openCollectives(driver, plan, options);
  if (!ownNccl)
    return ownNccl.takeError();
  Nccl *nccl = options.communicator ? options.communicator : ownNccl->get();
  BenchResult result;
  result.device = driver.deviceName();
  llvm::Expected<cuda::CUmodule> loaded = driver.loadModule(ptx);
  if (!loaded)
    return loaded.takeError();
  LoadedModule module{driver, *loaded};
  llvm::Expected<std::vector<cuda::CUfunction>> functions =
      loadKernels(driver, module.module, plan);
  if (!functions)
    return functions.takeError();
  for (const PlanKernel &kernel : plan.kernels)
    result.bytesMoved += kernel.bytes;

  DeviceBuffers allocations{driver, {}};
  std::vector<CUdeviceptr> pointers;
  if (llvm::Error error =
          allocateBuffers(driver, plan, inputs, allocations, pointers, result))
    return std::move(error);
  std::vector<std::vector<CUdeviceptr>> argValues;
  if (llvm::Error error = buildArguments(driver, plan, pointers, allocations,
                                         argValues, result))
    return std::move(error);
  std::vector<std::vector<void *>> argPointers;
  for (std::vector<CUdeviceptr> &values : argValues) {
    std::vector<void *> parameters;
    for (CUdeviceptr &value : values)
      parameters.push_back(&value);
    argPointers.push_back(std::move(parameters));
  }
  StepRunner steps{driver,     plan,     options,    nccl,
                   *functions, pointers, argPointers};
  for (size_t s = 1; s < plan.steps.size(); ++s)
    if (plan.steps[s].kind == StepKind::Kernel &&
        plan.steps[s - 1].kind == StepKind::Kernel &&
        steps.launchesEarly(plan.steps[s].index, true))
      ++result.earlyLaunches;
  if (llvm::Error error = steps.setUpOverlap())
    return std::move(error);
  result.overlappedSteps = steps.overlappedSteps();
  auto runSteps = [&] { return steps.run(); };
  auto launchOne = [&](size_t k, bool afterKernel) {
    return steps.launch(k, afterKernel);
  };

  // An SPMD run's devices start their steps together or not at all.
  if (options.setupDone && !options.setupDone(true))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "another device of the run failed before "
                                   "its first step");

  // The steps as one CUDA graph: captured once, replayed per run.
  GraphExec graph{driver, nullptr};
  if (options.cudaGraph && driver.hasGraphs()) {
    llvm::Expected<cuda::CUgraphExec> exec = captureGraph(driver, runSteps);
    if (!exec)
      return exec.takeError();
    graph.exec = *exec;
  }
  auto runGraph = [&] { return driver.launchGraph(graph.exec); };

  // One run for the outputs, checked before anything is timed: by the
  // graph when there is one, so --check checks what is replayed.
  if (llvm::Error error = graph.exec ? runGraph() : runSteps())
    return std::move(error);
  if (llvm::Error error = driver.synchronize())
    return std::move(error);
  if (llvm::Error error = copyOutputs(driver, plan, pointers, result))
    return std::move(error);
  if (options.iterations <= 0)
    return result;

  Events events{driver};
  if (llvm::Error error = createEvents(driver, events))
    return std::move(error);
  llvm::Expected<std::vector<double>> whole =
      timeRepeated(driver, events, options.warmup, options.iterations, options,
                   "runs", runSteps);
  if (!whole)
    return whole.takeError();
  result.stream = summarize(*whole);
  result.total = result.stream;
  if (result.overlappedSteps > 0) {
    // The same runs with every collective on the kernels' stream: what
    // the overlap hid is the difference.
    steps.overlap = false;
    llvm::Expected<std::vector<double>> serial =
        timeRepeated(driver, events, options.warmup, options.iterations,
                     options, "runs without overlap", runSteps);
    steps.overlap = true;
    if (!serial)
      return serial.takeError();
    result.serial = summarize(*serial);
  }
  if (graph.exec) {
    llvm::Expected<std::vector<double>> replays =
        timeRepeated(driver, events, options.warmup, options.iterations,
                     options, "graph replays", runGraph);
    if (!replays)
      return replays.takeError();
    result.graph = summarize(*replays);
    if (result.graph->p50 < result.stream.p50) {
      result.total = *result.graph;
      result.totalIsGraph = true;
    }
  }
  for (size_t k = 0; k < functions->size(); ++k) {
    llvm::Expected<std::vector<double>> one =
        timeRepeated(driver, events, options.warmup, options.iterations,
                     options, "kernel", [&] { return launchOne(k, false); });
    if (!one)
      return one.takeError();
    result.kernels.push_back(summarize(*one));
  }
  llvm::Expected<double> copyGBs =
      timeCopy(driver, events, options, result.bytesMoved);
  if (!copyGBs)
    return copyGBs.takeError();
  result.copyGBs = *copyGBs;
  return result;
}

void printBench(llvm::raw_ostream &os, const LaunchPlan &plan,
                const BenchResult &result) {
  os << llvm::formatv("device: {0}\n", result.device);
  os << llvm::formatv(
      "latency (us): p50 {0:F2}  p99 {1:F2}  mean {2:F2}  min {3:F2}   "
      "runs/s {4:F0}\n",
      result.total.p50, result.total.p99, result.total.mean, result.total.min,
      result.total.p50 > 0 ? 1e6 / result.total.p50 : 0.0);
  if (result.graph)
    os << llvm::formatv(
        "launch: {0}; CUDA graph replay p50 {1:F2}  p99 {2:F2}, steps "
        "launched one by one p50 {3:F2}  p99 {4:F2}\n",
        result.totalIsGraph ? "one CUDA graph (faster)"
                            : "step by step (faster than the CUDA graph)",
        result.graph->p50, result.graph->p99, result.stream.p50,
        result.stream.p99);
  else
    os << "launch: step by step (no CUDA graph)\n";
  if (result.earlyLaunches > 0)
    os << llvm::formatv("early launch: {0} of {1} kernels start while the "
                        "kernel before them ends (programmatic dependent "
                        "launch)\n",
                        result.earlyLaunches, plan.kernels.size());
  if (result.serial)
    os << llvm::formatv(
        "overlap: {0} collective step(s) beside the kernels; steps launched "
        "one by one p50 {1:F2} us, with every step on the kernels' stream "
        "p50 {2:F2} us: {3:F2} us hidden\n",
        result.overlappedSteps, result.stream.p50, result.serial->p50,
        result.serial->p50 - result.stream.p50);
  const double achieved = result.achievedGBs();
  os << llvm::formatv("bandwidth: {0:F1} GB/s moved ({1} bytes), copy "
                      "{2:F1} GB/s in the same run: {3:F1}% of copy\n",
                      achieved, result.bytesMoved, result.copyGBs,
                      result.copyGBs > 0 ? 100.0 * achieved / result.copyGBs
                                         : 0.0);
  os << llvm::formatv("device memory allocated: {0} bytes\n",
                      result.bytesAllocated);
  const bool predicted = llvm::any_of(
      plan.kernels, [](const PlanKernel &k) { return k.predictedUs > 0; });
  os << llvm::formatv("{0,-28} {1,10} {2,10} {3,14} {4,10}", "kernel", "p50 us",
                      "p99 us", "bytes", "GB/s");
  if (predicted)
    os << llvm::formatv(" {0,10} {1,7}", "pred us", "error");
  os << "\n";
  for (size_t k = 0; k < result.kernels.size(); ++k) {
    const PlanKernel &kernel = plan.kernels[k];
    const LatencyStats &stats = result.kernels[k];
    os << llvm::formatv("{0,-28} {1,10:F2} {2,10:F2} {3,14} {4,10:F1}",
                        kernel.name, stats.p50, stats.p99, kernel.bytes,
                        stats.p50 > 0 ? kernel.bytes / (stats.p50 * 1e3) : 0.0);
    if (predicted && kernel.predictedUs > 0 && stats.p50 > 0)
      os << llvm::formatv(" {0,10:F2} {1,6:F1}%", kernel.predictedUs,
                          100 * (kernel.predictedUs - stats.p50) / stats.p50);
    os << "\n";
  }
}

void printBenchJson(llvm::raw_ostream &os, const LaunchPlan &plan,
                    const BenchResult &result) {
  os << llvm::formatv("{0:2}", llvm::json::Value(benchToJson(plan, result)))
     << "\n";
}

llvm::json::Object benchToJson(const LaunchPlan &plan,
                               const BenchResult &result) {
  namespace json = llvm::json;
  auto stats = [](const LatencyStats &s) {
    return json::Object{{"p50_us", s.p50},
                        {"p99_us", s.p99},
                        {"mean_us", s.mean},
                        {"min_us", s.min}};
  };
  json::Array kernels;
  for (size_t k = 0; k < result.kernels.size(); ++k) {
    json::Object entry = stats(result.kernels[k]);
    entry["name"] = plan.kernels[k].name;
    entry["bytes"] = plan.kernels[k].bytes;
    if (plan.kernels[k].predictedUs > 0)
      entry["predicted_us"] = plan.kernels[k].predictedUs;
    if (!plan.kernels[k].tiling.empty())
      entry["tiling"] = plan.kernels[k].tiling;
    if (!plan.kernels[k].schedule.empty())
      entry["schedule"] = plan.kernels[k].schedule;
    kernels.push_back(std::move(entry));
  }
  json::Object root{
      {"device", result.device},
      {"function", plan.function},
      {"latency", stats(result.total)},
      {"launch", result.totalIsGraph ? "cuda-graph" : "stream"},
      {"latency_stream", stats(result.stream)},
      {"bytes_moved", result.bytesMoved},
      {"achieved_gbs", result.achievedGBs()},
      {"copy_gbs", result.copyGBs},
      {"percent_of_copy", result.copyGBs > 0
                              ? 100.0 * result.achievedGBs() / result.copyGBs
                              : 0.0},
      {"bytes_allocated", result.bytesAllocated},
      {"early_launches", result.earlyLaunches},
      {"kernels", std::move(kernels)},
  };
  if (result.graph)
    root["latency_graph"] = stats(*result.graph);
  if (result.serial) {
    root["overlapped_steps"] = result.overlappedSteps;
    root["latency_serial"] = stats(*result.serial);
    root["hidden_us"] = result.serial->p50 - result.stream.p50;
  }
  return root;
}

} // namespace opfuse
