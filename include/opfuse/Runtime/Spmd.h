//===- Spmd.h - One plan on several GPUs at once ----------------*- C++ -*-===//
//
// An SPMD run (--devices N) runs one launch plan on GPUs 0 to N-1, a host
// thread and CUDA context each, every device on its own slice of the
// inputs. Inputs the plan marks sharded (input_shards, the model's
// fuse.shard) are slices of one global tensor N times as long along their
// axis, device d holding slice d; the others are replicated. The seeded
// inputs are generated at the global shapes and cut into each device's,
// so a run on N devices and one on a different N see the same global
// data. Collective steps go through one NCCL communicator over all N.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_SPMD_H
#define OPFUSE_RUNTIME_SPMD_H

#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/Nccl.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <vector>

namespace opfuse {

/// The global tensors behind an SPMD program's inputs on `devices`
/// devices: `local` (one device's input specs) with each shard axis
/// (`axes[i]`, -1 or missing where input i is replicated; a plan's
/// inputShards) `devices` times as long.
std::vector<PlanBuffer> globalInputSpecs(const std::vector<PlanBuffer> &local,
                                         llvm::ArrayRef<int64_t> axes,
                                         int64_t devices);

/// Each device's inputs: its slice of every sharded global tensor, a copy
/// of every replicated one.
std::vector<std::vector<HostBuffer>>
shardInputs(const std::vector<HostBuffer> &global, llvm::ArrayRef<int64_t> axes,
            int64_t devices);

/// GPUs 0 to N-1 of an SPMD run and, where the plan has collectives, NCCL
/// over all N.
struct DeviceSet {
  std::vector<std::unique_ptr<cuda::Driver>> owned;
  std::vector<cuda::Driver *> drivers;
  std::unique_ptr<Nccl> nccl;
};

/// Opens GPUs 1 to `devices`-1 beside `first` (GPU 0, the caller's, which
/// is current again afterwards) and NCCL (`ncclPath`, else the usual
/// places) when `plan` has collectives. A machine with fewer GPUs, or
/// without NCCL, is a CollectivesUnavailableError.
llvm::Expected<DeviceSet> openDeviceSet(cuda::Driver &first, int devices,
                                        const LaunchPlan &plan,
                                        const std::string &ncclPath);

/// One device's part of an SPMD run: its measurement, or why it stopped.
struct DeviceRun {
  std::unique_ptr<BenchResult> result;
  std::string error;
  RunFailure failure = RunFailure::Gpu;
};

/// runPlan on every device of `devices` at once, a thread each: device d
/// with `inputs[d]` and rank d of the set's communicator. `options` holds
/// for all; without progress lines, and without CUDA graphs on more than
/// one device (graph capture of NCCL calls from several threads is not
/// measured yet). Devices meet after setup: none enters a collective that
/// a failed device will never join. A device that fails later aborts
/// NCCL's communicators (Nccl::abort), so that the others' collectives
/// stop instead of waiting for it; their errors then name it.
std::vector<DeviceRun>
runPlanOnDevices(const DeviceSet &devices, const std::string &ptx,
                 const LaunchPlan &plan,
                 const std::vector<std::vector<HostBuffer>> &inputs,
                 const BenchOptions &options);

/// An SPMD run as one JSON document: "devices" in rank order, each device's
/// benchToJson (with `bench`; else its device and function) and "rank",
/// then `addToDevice` (opt-fuse's checks); "nccl", NCCL's version, where
/// the set loaded it. Every run must have its result.
llvm::json::Object spmdRunToJson(
    const LaunchPlan &plan, const DeviceSet &devices,
    const std::vector<DeviceRun> &runs, bool bench,
    llvm::function_ref<void(size_t, llvm::json::Object &)> addToDevice = {});

/// The text report's first line: "SPMD run on N GPU(s) (NCCL 2.27.3)".
std::string spmdRunHeading(const DeviceSet &devices, size_t count);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_SPMD_H
