//===- FuseDialect.h - The fuse dialect -------------------------*- C++ -*-===//
//
// Declares the fuse dialect class (generated from FuseDialect.td) with the
// helpers of the attributes its passes exchange.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
#define OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H

#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"

#include "mlir/IR/Dialect.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h.inc"

namespace opfuse::fuse {
/// The loaded fuse dialect of `context`, whose get*AttrHelper() accessors
/// read and write the discardable attributes passes exchange.
FuseDialect &getFuseDialect(mlir::MLIRContext *context);
} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
