//===- FuseDialect.h - The fuse dialect -------------------------*- C++ -*-===//
//
// Declares the fuse dialect class (generated from FuseDialect.td).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
#define OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h.inc"

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
