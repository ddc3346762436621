//===- Sharding.h - Inputs of an SPMD run, device by device -----*- C++ -*-===//
//
// An SPMD run (--devices N) runs the function once per device. Arguments
// marked {fuse.shard = AXIS} are slices of one global tensor, N times as
// long along AXIS, device d holding slice d; the others are replicated.
// The model's side: the axes, and the collectives' span.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_SHARDING_H
#define OPFUSE_LIB_DRIVER_SHARDING_H

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

/// Every argument's shard axis, -1 where it is replicated (the cut itself
/// is the runtime's: opfuse/Runtime/Spmd.h).
std::vector<int64_t> shardAxes(mlir::func::FuncOp func);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_SHARDING_H
