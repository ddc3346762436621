//===- FastMath.h - f32 functions on the SM's own instructions --*- C++ -*-===//
//
// Functions that libdevice computes with branches or slow paths, written
// branch-free on MUFU instructions and FMAs, each with a measured error
// bound (docs/numerics.md).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_FASTMATH_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_FASTMATH_H

#include "mlir/IR/Builders.h"

namespace opfuse {

/// An f32 constant of `value` (rounded to f32).
mlir::Value f32Constant(mlir::OpBuilder &b, mlir::Location loc, double value);

/// One f32 PTX instruction `opcode` (e.g. "ex2.approx.ftz.f32") on `x`.
mlir::Value emitPtxUnaryF32(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::StringRef opcode, mlir::Value x);

/// erf of the f32 `x`, without a branch: an odd polynomial below 1 and
/// 1 - 2^(polynomial) above, one ex2.approx between them.
mlir::Value emitErfF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// GELU (erf) of the f32 `x` for a result rounded to `result` (bf16, f16
/// or f32): x Phi(x), Phi(-|x|) = 2^-(1 + |x| P(|x|)) for one polynomial P
/// (fitted per type) and one ex2.approx (docs/numerics.md).
mlir::Value emitGeluErf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Type result);

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_FASTMATH_H
