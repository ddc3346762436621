//===- PrecisionDemand.h - What a group value is rounded to ----*- C++ -*-===//
//
// A float value in a kernel is computed in f32, but often only to be
// rounded to f16 or bf16 on its way to an output: a 16-bit softmax
// computes exp and the row's quotients in f32 and rounds once, at its
// cast. Functions like exp then need a few more bits than the 16-bit
// type, not f32's last ulp, and the emitters pick a cheaper formula.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_PRECISIONDEMAND_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_PRECISIONDEMAND_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace opfuse {

class PrecisionDemand {
public:
  /// The 16-bit float type (f16 or bf16) to which `value` is rounded
  /// before any use could see more of it; null when some use needs f32.
  ///
  /// An f16 or bf16 value answers its own type: the model rounds it there,
  /// and the check's tolerance is that type's (docs/numerics.md). An f32
  /// value answers the narrow type when every use is a cast to f16 or bf16,
  /// a multiplication, division or broadcast whose result answers one, or
  /// a sum of nonnegative terms (exp's, say) that answers one: paths along
  /// which a relative error stays relative, with no cancellation to
  /// magnify it. bf16 wins over f16 where paths end in both: its range
  /// is f32's, so subnormal f32 results still matter to it.
  mlir::Type roundedTo(mlir::Value value);

private:
  mlir::Type compute(mlir::Value value);

  llvm::DenseMap<mlir::Value, mlir::Type> memo;
};

/// Whether `value` is nonnegative by construction: an exp, a sigmoid, or
/// a sum, product or quotient of such values.
bool isNonNegativeByConstruction(mlir::Value value);

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_PRECISIONDEMAND_H
