//===- InputRanges.h - Ranges of the seeded inputs of a model ---*- C++ -*-===//
//
// --bench, --check and --check-fusion run a model on seeded random inputs.
// Drawn all alike, a weight matrix of K rows multiplies its activations'
// magnitude by about sqrt(K): through a transformer block the attention
// scores reach 1e3 and the softmax becomes an argmax that turns any
// rounding into a different answer. Weights are therefore drawn the way
// models are initialised: variance 1/K for the contraction they feed.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_INPUTRANGES_H
#define OPFUSE_ANALYSIS_INPUTRANGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

namespace opfuse {

/// The range r (values uniform in [-r, r]) of each floating-point argument
/// of `func`: sqrt(3 / K) for an argument that reaches the right-hand
/// operand of a matmul with contraction K, or the filter of a conv2d with
/// K = KH * KW * C / groups, through reshapes, transposes, slices,
/// broadcasts, concats and casts (the smallest when it feeds several);
/// `kDefaultInputRange` for every other argument.
llvm::SmallVector<double> seededInputRanges(mlir::func::FuncOp func);

inline constexpr double kDefaultInputRange = 2.0;

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_INPUTRANGES_H
