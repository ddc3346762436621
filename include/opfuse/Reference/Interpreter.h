//===- Interpreter.h - CPU reference for fuse functions ---------*- C++ -*-===//
//
// Evaluates a fuse function on the CPU, op by op, as the unfused model
// means it: every op computes in double and rounds its result to its
// element type (f16/bf16 round to nearest even), reductions accumulate in
// f32 (or f64 on request). On request, at the precision of fused kernels
// instead: inside a fuse.group, f16 and bf16 results stay in f32 until the
// group yields them. Collectives run as on one device of n holding
// identical data: all_reduce is the identity, all_gather tiles its input n
// times, reduce_scatter keeps the first shard; interpretSpmd runs n devices
// of their own data instead. No GPU involved.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_REFERENCE_INTERPRETER_H
#define OPFUSE_REFERENCE_INTERPRETER_H

#include "opfuse/Reference/Offload.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <vector>

namespace opfuse::reference {

struct Tensor {
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> data;
  int64_t size() const { return data.size(); }
};

struct Options {
  /// Accumulate reductions, norms and matmuls in f64 instead of f32.
  bool f64Accumulation = false;
  /// Evaluate a fuse.group the way its kernel computes it: f16 and bf16
  /// results of the ops inside stay in f32 (the GPU widens on load and
  /// computes in f32) and are rounded to their type only where the group
  /// yields them or a fuse.cast asks for it. Outside groups, and for every
  /// other type, each op still rounds its result to its type.
  bool kernelPrecision = false;
  /// Where matmuls with f64 sums may go instead of the host's cores (the
  /// GPU); null: none leaves the host.
  ContractionOffload *offload = nullptr;
  /// Called after each op of the function (not of the groups inside it)
  /// with the ops done and their total: --check's progress line.
  std::function<void(int64_t done, int64_t total)> progress;
};

/// `value` rounded to what `elementType` can hold.
double roundTo(mlir::Type elementType, double value);

/// Runs `func` on `arguments`; fails with a diagnostic at the op it cannot
/// evaluate (an out-of-range gather index, a resource without data).
mlir::FailureOr<llvm::SmallVector<Tensor>>
interpret(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> arguments,
          const Options &options = {});

/// Runs `func` as an SPMD program on arguments.size() devices, device d on
/// arguments[d], rank by rank in lockstep: each collective combines every
/// device's input (all_reduce sums or takes the maximum, all_gather
/// concatenates along its axis in device order, reduce_scatter sums and
/// keeps device d's shard), and each must span exactly that many devices.
/// Returns each device's results.
mlir::FailureOr<llvm::SmallVector<llvm::SmallVector<Tensor>>>
interpretSpmd(mlir::func::FuncOp func,
              llvm::ArrayRef<llvm::SmallVector<Tensor>> arguments,
              const Options &options = {});

/// Device `device`'s result of collective `op` (all_reduce, all_gather,
/// reduce_scatter) over every device's input, in device order: sums and
/// maxima in double (rounded to the result type), shards in device order
/// along the axis.
Tensor combineCollective(mlir::Operation &op,
                         llvm::ArrayRef<const Tensor *> inputs, int64_t device);

} // namespace opfuse::reference

#endif // OPFUSE_REFERENCE_INTERPRETER_H
