//===- CheckTolerance.h - What --check compares outputs against -*- C++ -*-===//
//
// The precision an output is computed in and the per-element scale its
// error is measured against: how far rounding alone can move it
// (docs/numerics.md).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H
#define OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H

#include "opfuse/Reference/Interpreter.h"
#include "opfuse/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <vector>

namespace opfuse {

/// How coarsely a float type (or a tensor of it) rounds: bf16 3, f16 2,
/// f32 1, anything else 0.
int precisionRank(mlir::Type type);

/// The float type of least precision that an op result on the path to
/// returned value #`index` of `func` has (the output's own type included).
/// Function arguments do not count: they are exact inputs. An f32 output
/// cast from a bf16 chain carries bf16 precision: a fused kernel that keeps
/// the chain in f32 differs from the reference, which rounds every op to
/// bf16, by bf16 ulps, which f32 tolerances reject.
mlir::Type computedPrecision(mlir::func::FuncOp func, unsigned index);

/// Pass criteria per dtype (docs/numerics.md). The element bound is on the
/// mixed error |gpu - ref| / max(|ref|, 1, E); the L2 bound on
/// ||gpu - ref|| / ||ref||. Integers and booleans must match exactly.
struct Tolerance {
  double element, l2;
};
Tolerance toleranceFor(DType dtype);

/// The probe's tensors for one returned value (null where not built).
struct ErrorScaleValues {
  /// E, for float outputs that are not exact: a first-order bound on how
  /// far an evaluation that rounds differently can be from the reference,
  /// in rounding units of the output's precision.
  mlir::Value scale;
  /// T, for outputs downstream of a comparison of computed floats: how far,
  /// in the output's own units, the output may move because that
  /// comparison's operands lie within their rounding of each other, so
  /// that an evaluation that rounds differently decides it the other way.
  mlir::Value tie;
};

/// Builds, before the terminator of `probe` (a function of primitive ops),
/// E and T as f32 tensors for every returned value (ErrorScale.cpp,
/// docs/numerics.md).
llvm::SmallVector<ErrorScaleValues> buildErrorScales(mlir::func::FuncOp probe);

/// E and T of one output at each element: empty where not built.
struct OutputErrorScale {
  std::optional<std::vector<double>> scale, tie;
};

/// E and T of every output of `func` on `arguments`, interpreted by the
/// reference (f64 sums) on a decomposed copy of the module that holds
/// `func`. Fails (after a diagnostic) when the reference cannot run it.
/// `run` may offload matmuls and report progress (its sums are f64
/// whatever it says).
mlir::FailureOr<llvm::SmallVector<OutputErrorScale>>
computeErrorScales(mlir::func::FuncOp func,
                   llvm::ArrayRef<reference::Tensor> arguments,
                   const reference::Options &run = {});

/// One unit in the last place of f16 or bf16 at magnitude `x` (the
/// subnormal spacing below the normal range): strict --check's unit.
double unitInLastPlace(DType dtype, double x);

/// Whether returned value #`index` is computed through a matmul or conv2d
/// of f32 operands (which --allow-tf32 runs as TF32).
bool throughF32Contraction(mlir::func::FuncOp func, unsigned index);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H
