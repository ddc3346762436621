//===- Sharding.h - Inputs of an SPMD run, device by device -----*- C++ -*-===//
//
// An SPMD run (--devices N) runs the function once per device. Arguments
// marked {fuse.shard = AXIS} are slices of one global tensor, N times as
// long along AXIS, device d holding slice d; the others are replicated.
// The seeded inputs are generated at the global shapes and cut into each
// device's arguments, so a run on N devices and one on a different N see
// the same global data.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_SHARDING_H
#define OPFUSE_LIB_DRIVER_SHARDING_H

#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <vector>

namespace opfuse {

/// The axis argument `index` of `func` is sharded along, if any.
std::optional<int64_t> shardAxis(mlir::func::FuncOp func, unsigned index);

/// Fails, with a diagnostic at the op, unless every collective of `func`
/// spans `devices` devices.
mlir::LogicalResult checkCollectivesSpan(mlir::func::FuncOp func,
                                         int64_t devices);

/// The global tensors behind `func`'s arguments on `devices` devices:
/// `local` (one device's argument specs) with each sharded axis `devices`
/// times as long.
std::vector<PlanBuffer> globalSpecs(mlir::func::FuncOp func,
                                    const std::vector<PlanBuffer> &local,
                                    int64_t devices);

/// Each device's arguments: its slice of every sharded global tensor, a
/// copy of every replicated one.
std::vector<std::vector<HostBuffer>>
shardInputs(mlir::func::FuncOp func, const std::vector<HostBuffer> &global,
            int64_t devices);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_SHARDING_H
