//===- FuseOps.h - Operations of the fuse dialect ---------------*- C++ -*-===//
//
// Declares every fuse op (generated from FuseOps.td) with the traits,
// interfaces and enums they use.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEOPS_H
#define OPFUSE_DIALECT_FUSE_IR_FUSEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include <optional>
#include <string>

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseInterfaces.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/FuseTraits.h"

#include "opfuse/Dialect/Fuse/IR/FuseEnums.h.inc"

#define GET_OP_CLASSES
#include "opfuse/Dialect/Fuse/IR/FuseOps.h.inc"

namespace opfuse::fuse {

/// A fuse.constant holding one repeated value (false for null): kernels
/// copy it in and read it as a scalar.
bool isSplatConstant(mlir::Operation *op);

/// Ops a kernel evaluates element by element after broadcasting: every op
/// with the BroadcastElementwise trait, and broadcast_to.
bool isElementwise(mlir::Operation *op);

/// Ops that move data without arithmetic and that a kernel applies as an
/// index map where it reads: transpose, slice, concat and gather.
bool isDataMovement(mlir::Operation *op);

/// all_reduce, all_gather and reduce_scatter: they become collective steps
/// of the launch plan (NCCL calls), not kernels.
bool isCollective(mlir::Operation *op);

/// Why the collective `op` cannot be one NCCL call over its buffers as they
/// are (a gather or scatter along an axis with larger dimensions before
/// it, which would need a transpose around NCCL's contiguous shards), or
/// nothing when it can.
std::optional<std::string> whyNotOneNcclCall(mlir::Operation *op);

/// Moves `ops` (of one block, in any order) into a new fuse.group placed
/// after the last of them: operands defined outside become the group's
/// inputs (splat constants are copied in instead), results used outside
/// become its results. Returns null, erasing the ops, when nothing outside
/// uses them. The block may need a topological sort afterwards when an
/// extra result is used before the group's position.
GroupOp outlineIntoGroup(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEOPS_H
