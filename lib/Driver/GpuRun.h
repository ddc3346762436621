//===- GpuRun.h - --bench and --check of opt-fuse ---------------*- C++ -*-===//

#ifndef OPFUSE_LIB_DRIVER_GPURUN_H
#define OPFUSE_LIB_DRIVER_GPURUN_H

#include "CheckTolerance.h"
#include "Output.h"

#include "opfuse/Driver/Driver.h"
#include "opfuse/Reference/Interpreter.h"
#include "opfuse/Report/Report.h"
#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/LaunchPlan.h"

namespace opfuse {

/// The reference interpreter's view of seeded host inputs, typed by the
/// function's arguments.
llvm::SmallVector<reference::Tensor>
toReferenceTensors(mlir::func::FuncOp func,
                   const std::vector<HostBuffer> &buffers);

/// Where --check's reference runs its matmuls and how it reports progress.
struct ReferenceRun {
  reference::ContractionOffload *offload = nullptr;
  /// Progress lines on a terminal only (a log gets the estimate alone).
  bool showProgress = false;

  std::function<void(int64_t, int64_t)> progress(llvm::StringRef phase) const;
};

/// Compares every output of `fused` (the kernels as they ran) with the
/// reference; `func` is the model as written, where the scales come from.
/// Nullopt when the reference cannot run (it said why).
std::optional<std::vector<OutputCheck>>
checkOutputs(mlir::func::FuncOp func, mlir::func::FuncOp fused,
             const std::vector<HostBuffer> &inputs,
             const std::vector<HostBuffer> &outputs, bool tf32, bool strict,
             const ReferenceRun &run);

/// Every device through the reference at once (the collectives combining
/// their tensors), each device's `outputs` against its own. Nullopt when
/// the reference cannot run (it said why).
std::optional<std::vector<std::vector<OutputCheck>>>
checkDevices(const DriverOptions &options, mlir::func::FuncOp model,
             mlir::func::FuncOp kernels,
             const std::vector<std::vector<HostBuffer>> &inputs,
             llvm::ArrayRef<const std::vector<HostBuffer> *> outputs);

/// --check-on-host: the kernels of `compiled` (emitted, not serialised) run
/// on the host by the kernel interpreter, on the seeded inputs --check
/// would give the GPU, and are checked against the reference as --check
/// checks a GPU's outputs. Exit 4 when a kernel holds an op the
/// interpreter does not run.
int checkOnHost(const DriverOptions &options, mlir::ModuleOp original,
                mlir::ModuleOp fused, mlir::ModuleOp compiled);

/// `result` as the report shows it.
void recordMeasurement(const BenchResult &result, MeasuredRun &measured);

/// Compares one run's `outputs` with the reference's results of the
/// kernels (`kernelResults`), each element measured against the model's
/// rounding scale there (`scales`, computeErrorScales), with per-dtype
/// tolerances (docs/numerics.md); an element downstream of an undecided
/// comparison may differ by that output's T besides.
std::vector<OutputCheck>
compareOutputs(mlir::func::FuncOp func,
               llvm::ArrayRef<reference::Tensor> kernelResults,
               llvm::ArrayRef<OutputErrorScale> scales,
               const std::vector<HostBuffer> &outputs, bool tf32, bool strict);

/// --bench and --check with --devices=N: the plan runs SPMD, one thread a
/// GPU (0 to N-1), each on its slice of the sharded arguments, NCCL's
/// communicator over all N; --check compares every device's outputs with
/// the reference run of all N devices. `driver` is GPU 0's.
int runSpmdOnGpu(const DriverOptions &options, mlir::func::FuncOp model,
                 mlir::func::FuncOp kernels, const std::string &ptx,
                 const LaunchPlan &plan, cuda::Driver &driver,
                 MeasuredRun *measured);

/// Runs the compiled plan on the GPU: benchmarks it with --bench, compares
/// its outputs with --check against the reference interpreter on `fused`
/// (the model after the fusion passes) at kernel precision, with error
/// scales from `original`. With `measured`, the benchmark goes there (for
/// the report) instead of being printed.
int runOnGpu(const DriverOptions &options, mlir::ModuleOp original,
             mlir::ModuleOp fused, const std::string &ptx,
             const LaunchPlan &plan, MeasuredRun *measured);

/// --calibrate: measures the GPU and writes the target file to the output.
int runCalibration(const DriverOptions &options, const GpuTarget &base);

/// Interprets `original` and its fused form on the same seeded inputs and
/// compares the outputs bit for bit.
int checkFusion(const DriverOptions &options, mlir::ModuleOp original);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_GPURUN_H
