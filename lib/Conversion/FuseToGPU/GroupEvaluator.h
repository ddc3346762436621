//===- GroupEvaluator.h - A group body's ops on scalars ---------*- C++ -*-===//
//
// The one evaluator of group bodies the loop, row and GEMM-epilogue
// emitters share: a value is computed once per (value, layout context),
// its operands first, then lane by lane with emitScalarOp. What differs
// between emitters (where inputs come from, which values ignore the
// context, the context an op reads its operands in) is a hook.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_GROUPEVALUATOR_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_GROUPEVALUATOR_H

#include "PrecisionDemand.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace opfuse {

class GroupEvaluator {
public:
  /// A value's lanes: `width` scalars in compute types.
  using Lanes = llvm::SmallVector<mlir::Value>;
  /// A value in a layout context (an emitter's index; -1: none).
  using Key = std::pair<mlir::Value, int>;
  using Memo = llvm::DenseMap<Key, Lanes>;

  /// Evaluates into `memo`, which the caller owns so that it outlives the
  /// evaluator (one memo per vector position, say). With `strict`
  /// (--numerics=strict) every f16 or bf16 op result, and every seeded
  /// value of those types, is rounded to its type as it is computed;
  /// otherwise it stays in f32 until it is stored.
  GroupEvaluator(mlir::OpBuilder &b, int64_t width, Memo &memo, bool strict)
      : b(b), width(width), strict(strict), memo(memo) {}
  virtual ~GroupEvaluator() = default;

  /// The lanes of `value` in `context`: memoised, else provided by the
  /// emitter, else computed from its defining op (a splat constant as one
  /// scalar in every lane).
  mlir::FailureOr<Lanes> evaluate(mlir::Value value, int context);

  /// Records lanes the emitter computed itself (loaded inputs, a GEMM's
  /// accumulators).
  void seed(mlir::Value value, int context, Lanes lanes) {
    memo[{value, keyContext(value, context)}] =
        roundToDeclared(value, std::move(lanes));
  }

protected:
  /// Lanes the emitter supplies for `value` (block arguments, per-row
  /// values), nullopt to compute it from its op, failure after an error.
  virtual mlir::FailureOr<std::optional<Lanes>> provide(mlir::Value value,
                                                        int context) {
    return std::optional<Lanes>();
  }
  /// The context `value` is memoised under when asked for in `context`:
  /// values that read the same in every layout use one (-1).
  virtual int keyContext(mlir::Value value, int context) { return context; }
  /// The context `op`, evaluated in `context`, reads its operands in.
  virtual int operandContext(mlir::Operation *op, int context) {
    return context;
  }

  /// What is computed so far, for an evaluator of a nested region (a
  /// branch), whose values must not leak out of it.
  Memo memoCopy() const { return memo; }

  mlir::OpBuilder &b;
  int64_t width;
  const bool strict;
  /// What each op's result is rounded to, for emitScalarOp's formulas.
  PrecisionDemand demand;

private:
  /// `lanes` of `value` rounded to its f16 or bf16 element type in strict
  /// mode (a no-op otherwise, and for other types).
  Lanes roundToDeclared(mlir::Value value, Lanes lanes);

  Memo &memo;
};

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_GROUPEVALUATOR_H
