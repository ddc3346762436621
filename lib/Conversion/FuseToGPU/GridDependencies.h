//===- GridDependencies.h - Early launch of dependent kernels ---*- C++ -*-===//
//
// Programmatic dependent launch (sm_90): a kernel launched early runs
// beside the tail of the kernel before it, so it must wait for that grid
// (griddepcontrol.wait) before it reads what the kernel wrote or writes
// anything, and it lets the kernel after it launch early in turn
// (griddepcontrol.launch_dependents).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_GRIDDEPENDENCIES_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_GRIDDEPENDENCIES_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace opfuse {

/// Whether `chip` (sm_NN, sm_NNa) has griddepcontrol: sm_90 and later.
bool hasGridDependencyControl(llvm::StringRef chip);

/// griddepcontrol.wait: until the grids this one depends on have completed
/// and their memory is visible. Inline PTX with a memory clobber, so that
/// no load or store moves above it (the NVVM intrinsic is marked as not
/// touching memory).
void emitWaitForPriorGrids(mlir::OpBuilder &b, mlir::Location loc);

/// griddepcontrol.launch_dependents: the next kernel may launch once every
/// block of this one has said so (or ended).
void emitLaunchDependents(mlir::OpBuilder &b, mlir::Location loc);

/// Whether `kernel` waits for the grids before it somewhere.
bool waitsForPriorGrids(mlir::gpu::GPUFuncOp kernel);

/// Makes `kernel` safe to launch early: unless its emitter placed the wait
/// itself, waits at its entry and then lets its dependents launch (one
/// kernel ahead at most: a dependent launches only once this kernel has
/// passed its own wait).
void waitAtEntry(mlir::gpu::GPUFuncOp kernel);

/// Whether group input `input` is one of the function's arguments: no
/// kernel writes it, so a kernel may read it before its wait.
bool isModelInput(fuse::GroupOp group, mlir::BlockArgument input);

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_GRIDDEPENDENCIES_H
