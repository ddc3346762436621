//===- FuseInterfaces.h - CostInterface of the fuse dialect -----*- C++ -*-===//
//
// Declares CostInterface (generated from FuseInterfaces.td) and the helpers its
// default methods use.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_H
#define OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_H

#include "mlir/IR/OpDefinition.h"

namespace opfuse::fuse::detail {
/// Sum of the byte sizes of all tensor operands.
int64_t defaultBytesRead(mlir::Operation *op);
/// Sum of the byte sizes of all tensor results.
int64_t defaultBytesWritten(mlir::Operation *op);
} // namespace opfuse::fuse::detail

#include "opfuse/Dialect/Fuse/IR/FuseInterfaces.h.inc"

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_H
