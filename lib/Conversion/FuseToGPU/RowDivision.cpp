//===- RowDivision.cpp - A row's elements divided by a per-row value ------===//
//
// softmax divides every element of a row by the row's sum. div.rn.f32 is
// about ten instructions per element, one of them on the SM's slow
// special-function unit (which the exponential needs too), and a 16-bit
// softmax's kernel is as much bound by instructions as by memory. Instead
// the row's reciprocal y = 1/b is computed once, and each quotient is
// q = RN(a y) corrected by one FMA step (Markstein): e = a - q b, exact
// with an FMA, and RN(q + e y) is the correctly rounded a / b whenever y is
// the correctly rounded reciprocal and nothing underflows. Six
// instructions per element, none on that unit, and the same bits as IEEE
// division but for quotients or dividends below 2^-100, which may differ by
// an ulp (docs/numerics.md). A quotient that is rounded to f16 or bf16
// before anything sees more of it (a 16-bit softmax's) skips the
// correction: one multiplication per element.
//
//===----------------------------------------------------------------------===//

#include "RowKernelEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

namespace opfuse::row_kernel {

Value RowKernelEmitter::rowDivisor(Operation *op) {
  auto divide = dyn_cast<DivOp>(op);
  if (!divide || kb.strictNumerics() ||
      info.kinds.lookup(divide.getResult()) != RowValueKind::Element ||
      info.kinds.lookup(divide.getLhs()) != RowValueKind::Element)
    return nullptr;
  Value divisor = divide.getRhs();
  RowValueKind kind = info.kinds.lookup(divisor);
  if (kind != RowValueKind::Row && kind != RowValueKind::Scalar)
    return nullptr;
  // f16, bf16 and f32 compute in f32, where the bounds below hold.
  Type element = cast<RankedTensorType>(divisor.getType()).getElementType();
  if (!isa<Float16Type, BFloat16Type, Float32Type>(element))
    return nullptr;
  return divisor;
}

LogicalResult RowKernelEmitter::emitRowReciprocals(int level) {
  for (Operation &op : body.without_terminator()) {
    Value divisor = rowDivisor(&op);
    if (!divisor || reciprocals.count(divisor) || levelOf(divisor) > level)
      continue;
    FailureOr<Value> original = rowScalar(divisor);
    if (failed(original))
      return failure();
    auto f32 = [&](double v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    auto compare = [&](arith::CmpFPredicate predicate, Value x, double v) {
      return arith::CmpFOp::create(b, loc, predicate, x, f32(v));
    };
    // Below 2^-126 1/b overflows and above 2^126 it is subnormal: such a
    // row divides a 2^64 and b 2^64 (or 2^-64) times larger, exactly, so
    // that b is normal. A product a 2^64 that overflows means a quotient
    // beyond f32 anyway; one a 2^-64 that underflows, a quotient of 0.
    Value magnitude = math::AbsFOp::create(b, loc, *original);
    Value scale = arith::SelectOp::create(
        b, loc, compare(arith::CmpFPredicate::OLT, magnitude, 0x1p-126),
        f32(0x1p64),
        arith::SelectOp::create(
            b, loc, compare(arith::CmpFPredicate::OGT, magnitude, 0x1p126),
            f32(0x1p-64), f32(1.0)));
    Value scaled = arith::MulFOp::create(b, loc, *original, scale);
    Value reciprocal = arith::DivFOp::create(b, loc, f32(1.0), scaled);
    // The correction is exact only while b (so y) is normal and finite:
    // for 0, inf and NaN it multiplies by NaN, and each quotient falls back
    // to a y, which is a / b exactly for those.
    Value scaledMagnitude = math::AbsFOp::create(b, loc, scaled);
    Value normal = arith::AndIOp::create(
        b, loc, compare(arith::CmpFPredicate::OGE, scaledMagnitude, 0x1p-126),
        compare(arith::CmpFPredicate::OLE, scaledMagnitude, 0x1p126));
    Value correction =
        arith::SelectOp::create(b, loc, normal, reciprocal,
                                f32(std::numeric_limits<double>::quiet_NaN()));
    reciprocals[divisor] = {scale, scaled, reciprocal, correction};
  }
  return success();
}

const RowKernelEmitter::RowReciprocal *
RowKernelEmitter::rowReciprocalOf(Operation *op) {
  Value divisor = rowDivisor(op);
  auto found = divisor ? reciprocals.find(divisor) : reciprocals.end();
  return found == reciprocals.end() ? nullptr : &found->second;
}

SmallVector<Value> RowKernelEmitter::divideByRow(const RowReciprocal &row,
                                                 ArrayRef<Value> dividend,
                                                 bool roundedTo16Bits) {
  SmallVector<Value> quotients;
  for (Value a : dividend) {
    a = arith::MulFOp::create(b, loc, a, row.scale);
    Value q = arith::MulFOp::create(b, loc, a, row.reciprocal);
    // RN(a y) is within 1.5 ulps of a / b (y is the correctly rounded 1/b),
    // and IEEE's for a zero, infinite or NaN a or b: rounded to f16 or bf16
    // it is a / b's rounding or a neighbour (docs/numerics.md).
    if (roundedTo16Bits) {
      quotients.push_back(q);
      continue;
    }
    Value e = math::FmaOp::create(b, loc, arith::NegFOp::create(b, loc, q),
                                  row.divisor, a);
    Value corrected = math::FmaOp::create(b, loc, e, row.correction, q);
    // NaN: b is 0, inf or NaN, or a is infinite or q overflowed. Zero:
    // q has the sign IEEE gives the quotient, where q + e y may not.
    Value failedStep = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UEQ, corrected,
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0)));
    quotients.push_back(
        arith::SelectOp::create(b, loc, failedStep, q, corrected));
  }
  return quotients;
}

} // namespace opfuse::row_kernel
