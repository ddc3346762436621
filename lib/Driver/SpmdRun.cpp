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

#include "opfuse/Runtime/Spmd.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace opfuse {

std::optional<std::vector<std::vector<OutputCheck>>>
checkDevices(const DriverOptions &options, func::FuncOp model,
             func::FuncOp kernels,
             const std::vector<std::vector<HostBuffer>> &inputs,
             llvm::ArrayRef<const std::vector<HostBuffer> *> outputs) {
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
  for (auto [device, deviceOutputs] : llvm::enumerate(outputs)) {
    // Each device's rounding scales, from its own data (collectives as on
    // one device: docs/numerics.md).
    FailureOr<SmallVector<OutputErrorScale>> scales =
        computeErrorScales(model, arguments[device], reference::Options());
    if (failed(scales))
      return std::nullopt;
    checks.push_back(compareOutputs(model, (*references)[device], *scales,
                                    *deviceOutputs,
                                    options.compile.emitter.allowTF32, strict));
  }
  return checks;
}

namespace {

/// Every device's measurement and checks, as text or one JSON document.
void printDevices(const DriverOptions &options, const LaunchPlan &plan,
                  const DeviceSet &devices, const std::vector<DeviceRun> &runs,
                  const std::vector<std::vector<OutputCheck>> *checks) {
  if (options.json) {
    llvm::json::Object root =
        spmdRunToJson(plan, devices, runs, options.bench,
                      [&](size_t device, llvm::json::Object &object) {
                        if (checks)
                          object["check"] =
                              outputChecksToJson((*checks)[device]);
                      });
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
                 << "\n";
    return;
  }
  llvm::outs() << spmdRunHeading(devices, runs.size()) << "\n";
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
  llvm::Expected<DeviceSet> devices =
      openDeviceSet(driver, options.devices, plan, options.ncclPath);
  if (!devices)
    return reportRunError("opt-fuse", devices.takeError());
  // The seeded global tensors, each device's slice of them.
  std::vector<PlanBuffer> local;
  for (int id : plan.inputs)
    local.push_back(plan.buffers[id]);
  const std::vector<int64_t> axes = shardAxes(model);
  std::vector<std::vector<HostBuffer>> inputs =
      shardInputs(generateInputs(globalInputSpecs(local, axes, options.devices),
                                 options.seed),
                  axes, options.devices);

  BenchOptions bench;
  bench.warmup = options.warmup;
  bench.iterations = options.bench ? options.iterations : 0;
  bench.cudaGraph = options.cudaGraph;
  std::vector<DeviceRun> runs =
      runPlanOnDevices(*devices, ptx, plan, inputs, bench);
  if (int exitCode = reportDeviceFailures("opt-fuse", runs);
      exitCode != ExitSuccess)
    return exitCode;

  std::optional<std::vector<std::vector<OutputCheck>>> checks;
  if (options.check) {
    std::vector<const std::vector<HostBuffer> *> outputs;
    for (const DeviceRun &run : runs)
      outputs.push_back(&run.result->outputs);
    checks = checkDevices(options, model, kernels, inputs, outputs);
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
    printDevices(options, plan, *devices, runs, checks ? &*checks : nullptr);
  }
  if (checks)
    for (const std::vector<OutputCheck> &deviceChecks : *checks)
      if (llvm::any_of(deviceChecks,
                       [](const OutputCheck &c) { return !c.pass; }))
        return ExitCheckFailed;
  return ExitSuccess;
}

} // namespace opfuse
