//===- CheckTolerance.h - What --check compares outputs against -*- C++ -*-===//
//
// The precision an output is computed in and the per-element scale its
// error is measured against (docs/numerics.md).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H
#define OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace opfuse {

/// The float type of least precision that an op result on the path to
/// returned value #`index` of `func` has (the output's own type included).
/// Function arguments do not count: they are exact inputs. An f32 output
/// cast from a bf16 chain carries bf16 precision: a fused kernel that keeps
/// the chain in f32 differs from the reference, which rounds every op to
/// bf16, by bf16 ulps, which f32 tolerances reject.
mlir::Type computedPrecision(mlir::func::FuncOp func, unsigned index);

/// A value whose magnitude at an element bounds how much rounding (a
/// store that lands on the other side of a rounding boundary, another
/// order of an f32 sum) can move the output there: an addend, or the op
/// that produces `value` applied to the magnitudes of its operands when
/// `ofMagnitudes`: |lhs| @ |rhs| for a matmul or conv2d, the sum (or mean)
/// of |x| for reduce_sum (reduce_mean).
struct ScaleSource {
  mlir::Value value;
  bool ofMagnitudes = false;
};

/// The scale sources of returned value #`index`, found through the ops of
/// its shape it is computed from element by element: the operands of
/// additions and subtractions, and matmuls and convolutions (by their
/// products) with a computed operand, with f32 operands (their f32
/// accumulation order shows at f32 bounds), or any when `roundedInputs`
/// (TF32 rounds the inputs too), and f32 sums and means over axes (the same:
/// an f32 sum of n terms is off by up to about log2(n) ulps of the sum of
/// their magnitudes, summed as a tree). An output that is a small sum of
/// large terms is only as exact as those terms.
llvm::SmallVector<ScaleSource> scaleSources(mlir::func::FuncOp func,
                                            unsigned index,
                                            bool roundedInputs = false);

/// Whether returned value #`index` is computed through a matmul or conv2d
/// of f32 operands (which --allow-tf32 runs as TF32).
bool throughF32Contraction(mlir::func::FuncOp func, unsigned index);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_CHECKTOLERANCE_H
