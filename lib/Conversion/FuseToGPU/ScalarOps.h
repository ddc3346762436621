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
/// `roundedTo` is the f16 or bf16 type the result is rounded to before
/// anything sees more of it (PrecisionDemand), or null: where set, exp,
/// sigmoid, SiLU, tanh and GELU take formulas accurate to a few bits beyond
/// that type rather than to f32's last ulps.
mlir::FailureOr<mlir::Value> emitScalarOp(mlir::OpBuilder &builder,
                                          mlir::Operation *op,
                                          mlir::ValueRange operands,
                                          mlir::Type roundedTo = {});

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_SCALAROPS_H
