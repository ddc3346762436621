//===- GpuRun.h - --bench and --check of opt-fuse ---------------*- C++ -*-===//

#ifndef OPFUSE_LIB_DRIVER_GPURUN_H
#define OPFUSE_LIB_DRIVER_GPURUN_H

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
