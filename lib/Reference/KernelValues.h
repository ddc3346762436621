//===- KernelValues.h - Values of the kernel interpreter --------*- C++ -*-===//
//
// A value of one thread as the kernel interpreter keeps it: lanes of
// scalars (integers with their bit width, floats as the exact double of
// their type's value, pointers as a buffer and a byte offset), how they are
// read from and written to memory, and the lane-wise arith and math ops.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_REFERENCE_KERNELVALUES_H
#define OPFUSE_LIB_REFERENCE_KERNELVALUES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace opfuse::reference::kernel {

struct Scalar {
  enum Kind : uint8_t { Poison, Int, Float, Pointer } kind = Poison;
  unsigned width = 0; // Int: bits
  uint64_t bits = 0;  // Int: the value, zero-extended
  double value = 0;   // Float: exact
  int buffer = -1;    // Pointer
  int64_t offset = 0; // Pointer: bytes

  static Scalar integer(uint64_t bits, unsigned width) {
    Scalar s;
    s.kind = Int;
    s.width = width;
    s.bits = width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
    return s;
  }
  static Scalar real(double value) {
    Scalar s;
    s.kind = Float;
    s.value = value;
    return s;
  }
  int64_t signedMin() const {
    return width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
  }
  int64_t signedValue() const {
    if (width >= 64)
      return static_cast<int64_t>(bits);
    const uint64_t sign = uint64_t(1) << (width - 1);
    return static_cast<int64_t>((bits ^ sign) - sign);
  }
};

using Lanes = llvm::SmallVector<Scalar, 1>;

/// Bits of an integer or index type (or of a vector's elements).
unsigned intWidth(mlir::Type type);
/// A shaped type's element type, or `type`.
mlir::Type scalarType(mlir::Type type);
/// A vector's lanes, or 1.
int64_t laneCount(mlir::Type type);
/// f16, bf16, f32 or f64's semantics; null for other types.
const llvm::fltSemantics *semanticsOf(mlir::Type type);
/// `value` rounded to nearest even in `type`.
double roundTo(mlir::Type type, double value);
/// Bytes of an integer, float or vector type; 0 for others.
int64_t byteSize(mlir::Type type);
/// The scalar of `type` stored at `at`.
Scalar decode(mlir::Type type, const uint8_t *at);
/// `s` stored at `at` as `type` (floats rounded to nearest even).
void encode(mlir::Type type, const Scalar &s, uint8_t *at);

/// What a lane-wise op gives: its result, why it cannot give one (a
/// division by zero), or nothing when it is not an op the interpreter
/// knows.
struct LaneResult {
  enum Kind { Value, Error, Unknown } kind = Unknown;
  Scalar value;
  std::string error;
};

/// One lane of an arith or math op (not select) on its operands' lanes
/// `in`. f32 arithmetic runs in float, so each op rounds as the GPU's
/// does; fma is fused; transcendental functions are exact, rounded to the
/// type.
LaneResult evaluateLaneOp(mlir::Operation &op, llvm::ArrayRef<Scalar> in);

/// Whether evaluateLaneOp knows `op`.
bool isLaneOp(mlir::Operation &op);

} // namespace opfuse::reference::kernel

#endif // OPFUSE_LIB_REFERENCE_KERNELVALUES_H
