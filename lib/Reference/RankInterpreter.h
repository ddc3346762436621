//===- RankInterpreter.h - One device's interpreter, stepped ----*- C++ -*-===//
//
// What interpretSpmd (Spmd.cpp) needs of the interpreter (Interpreter.cpp):
// one instance a device, fed the function's ops one at a time, with the
// collectives' results set from outside. And the small helpers both files
// use.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_REFERENCE_RANKINTERPRETER_H
#define OPFUSE_LIB_REFERENCE_RANKINTERPRETER_H

#include "opfuse/Reference/Interpreter.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace opfuse::reference {

class RankInterpreter {
public:
  virtual ~RankInterpreter() = default;
  static std::unique_ptr<RankInterpreter> create(const Options &options);

  /// Binds `block`'s arguments to `args`.
  virtual void bind(mlir::Block &block, llvm::ArrayRef<Tensor> args) = 0;
  /// Evaluates `op` (not a collective) on the values bound so far.
  virtual mlir::LogicalResult evalOp(mlir::Operation &op) = 0;
  virtual const Tensor &valueOf(mlir::Value value) = 0;
  /// Sets `result`, rounded to its element type.
  virtual void setValue(mlir::Value result, Tensor tensor) = 0;
  /// Forgets `value` (after its last use).
  virtual void drop(mlir::Value value) = 0;
};

/// The op of `block` that uses each value last: tensors of real models are
/// large, so each is dropped after it.
llvm::DenseMap<mlir::Value, mlir::Operation *> lastUses(mlir::Block &block);

inline int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// max and min where a NaN operand gives NaN.
inline double fmaxNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
inline double fminNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

} // namespace opfuse::reference

#endif // OPFUSE_LIB_REFERENCE_RANKINTERPRETER_H
