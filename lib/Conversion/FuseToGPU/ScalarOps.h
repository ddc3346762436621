//===- ScalarOps.h - One element of each elementwise fuse op ----*- C++ -*-===//
//
// The scalar lowering every emitter evaluates group bodies with.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_SCALAROPS_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_SCALAROPS_H

#include "mlir/IR/Builders.h"

namespace opfuse {

/// The type a value of element type `type` is computed in: f32 for every
/// float, the type itself otherwise.
mlir::Type getComputeType(mlir::Type type);

/// Lowers the elementwise `op` applied to scalar `operands` (in compute
/// types) to arith/math ops; returns the scalar result in its compute type.
mlir::FailureOr<mlir::Value> emitScalarOp(mlir::OpBuilder &builder,
                                          mlir::Operation *op,
                                          mlir::ValueRange operands);

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_SCALAROPS_H
