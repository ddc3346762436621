//===- BufferGraph.h - Kernels and buffers for planning ---------*- C++ -*-===//
//
// The bridge between IR and the MLIR-free planner (MemoryPlan.h): every op
// that launches a kernel becomes a KernelNode, every value it writes a
// buffer; arguments and constants are buffers no kernel writes, reshapes
// alias their input's buffer. After `fuse-plan-memory` the plan is in the IR
// (`fuse.offsets` on kernels, `fuse.memory` on the function) and
// readMemoryPlan gets it back for the launch plan and the report.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_BUFFERGRAPH_H
#define OPFUSE_ANALYSIS_BUFFERGRAPH_H

#include "opfuse/Analysis/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace opfuse {

struct FunctionBuffers {
  KernelGraph graph;
  /// The kernel ops in program order (KernelGraph::kernels' order).
  llvm::SmallVector<mlir::Operation *> kernels;
  /// The buffer holding each value.
  llvm::DenseMap<mlir::Value, int> bufferOf;
  /// Bytes the caller owns: arguments, constants, and the outputs when they
  /// are not planned into the arena.
  int64_t inputBytes = 0, constantBytes = 0, outputBytes = 0;
};

/// Builds the kernel graph of `func`. With `planOutputs`, the function's
/// results computed by kernels are arena buffers (live to the end).
FunctionBuffers buildFunctionBuffers(mlir::func::FuncOp func, bool planOutputs);

/// The summary fuse-plan-memory stores on the function.
struct MemorySummary {
  int64_t arenaBytes = 0, lowerBound = 0, naiveBytes = 0;
  int64_t inputBytes = 0, constantBytes = 0, outputBytes = 0;
  int64_t inPlaceHits = 0;
  bool planOutputs = false;
  std::string order, placement;
};

/// Stores `plan` in the IR: `fuse.offsets` on each kernel (one offset per
/// result, -1 outside the arena) and `fuse.memory` on the function.
void annotateMemoryPlan(mlir::func::FuncOp func, const FunctionBuffers &buffers,
                        const MemoryPlan &plan, bool planOutputs);

/// The summary on `func`, if fuse-plan-memory ran.
std::optional<MemorySummary> readMemorySummary(mlir::func::FuncOp func);

/// The plan stored in the IR, in the function's (planned) program order,
/// with lifetimes recomputed from it; nullopt when `func` is not planned.
std::optional<MemoryPlan> readMemoryPlan(mlir::func::FuncOp func,
                                         const FunctionBuffers &buffers);

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_BUFFERGRAPH_H
