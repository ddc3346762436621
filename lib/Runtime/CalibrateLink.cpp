//===- CalibrateLink.cpp - Measure the links between GPUs through NCCL ----===//
//
// The link bandwidth the cost model prices collectives with, measured the
// way a plan runs them: a one-step plan (an all_reduce) run SPMD on every
// GPU, so the figure includes what the runtime adds around an NCCL call.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Calibrate.h"

#include "opfuse/Runtime/Spmd.h"

#include "llvm/Support/FormatVariadic.h"

namespace opfuse {

namespace {
/// A PTX module without kernels: the plan has none.
constexpr const char *kEmptyPtx = ".version 7.0\n.target sm_80\n"
                                  ".address_size 64\n";
} // namespace

llvm::Expected<LinkMeasurement>
measureLinkBandwidth(cuda::Driver &first, int devices, int64_t bytes, int ctas,
                     const std::string &ncclPath,
                     const CalibrateOptions &options, llvm::raw_ostream &log) {
  LaunchPlan plan;
  plan.function = "calibrate_link";
  const int64_t elements = bytes / dtypeBytes(DType::BF16);
  for (int id : {0, 1}) {
    PlanBuffer buffer;
    buffer.id = id;
    buffer.name = id == 0 ? "arg0" : "result0";
    buffer.dtype = DType::BF16;
    buffer.shape = {elements};
    buffer.role = id == 0 ? BufferRole::Input : BufferRole::Output;
    plan.buffers.push_back(buffer);
  }
  plan.inputs = {0};
  plan.outputs = {1};
  PlanCollective reduce;
  reduce.input = 0;
  reduce.output = 1;
  reduce.devices = devices;
  reduce.overlapSms = ctas;
  plan.steps.push_back({StepKind::Collective, 0});
  plan.collectives.push_back(reduce);

  llvm::Expected<DeviceSet> set = openDeviceSet(first, devices, plan, ncclPath);
  if (!set)
    return set.takeError();
  std::vector<std::vector<HostBuffer>> inputs(
      devices, {makeHostBuffer(DType::BF16, {elements})});
  BenchOptions bench;
  bench.warmup = options.warmup;
  bench.iterations = options.iterations;
  bench.cudaGraph = false;
  std::vector<DeviceRun> runs =
      runPlanOnDevices(*set, kEmptyPtx, plan, inputs, bench);
  for (auto [device, run] : llvm::enumerate(runs))
    if (!run.result)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("link calibration on GPU {0}: {1}", device, run.error)
              .str());
  LinkMeasurement link;
  link.p50Us = runs.front().result->total.p50;
  link.busBandwidth =
      bytes * 2.0 * (devices - 1) / devices / (link.p50Us * 1e-6);
  log << llvm::formatv("calibrate: all_reduce of {0} MiB on {1} GPUs{2} "
                       "(NCCL {3}): {4:F1} us, bus {5:F1} GB/s\n",
                       bytes >> 20, devices,
                       ctas > 0 ? llvm::formatv(", {0} CTAs", ctas).str()
                                : std::string(),
                       set->nccl ? set->nccl->version() : "?", link.p50Us,
                       link.busBandwidth / 1e9);
  return link;
}

} // namespace opfuse
