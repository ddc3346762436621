//===- FuseOps.cpp - ODS-generated definitions of the fuse ops ------------===//
//
// Only the generated code lives here; each op family's rules are in the file
// named after it, so a change to one family recompiles one small unit.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "opfuse/Dialect/Fuse/IR/FuseEnums.cpp.inc"

#define GET_OP_CLASSES
#include "opfuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
