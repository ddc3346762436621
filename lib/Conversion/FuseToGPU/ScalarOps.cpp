//===- ScalarOps.cpp - One element of each elementwise fuse op ------------===//
//
// The arith/math form of every elementwise op on one element. Floats are
// computed in f32 (f16/bf16 round only where a cast or a store asks), which
// the GPU pipeline then maps to libdevice or polynomial approximations;
// erf, sigmoid and SiLU use opfuse's own formulas on the SM's ex2 and rcp
// (FastMath.h), and tanh (and GELU's) with a bf16 result the SM's own tanh.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"

#include "FastMath.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

Type getComputeType(Type type) {
  if (isa<FloatType>(type))
    return Float32Type::get(type.getContext());
  return type;
}

namespace {

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

/// 1 / (1 + e^-x) for an op whose result is rounded to `result` (its own
/// element type, or the 16-bit type PrecisionDemand finds), with
/// two MUFU instructions: 2^(-x log2 e) by ex2.approx.ftz.f32 and the
/// reciprocal by rcp.approx.ftz.f32 (libdevice's expf and the IEEE
/// reciprocal cost a SiLU epilogue a third of a large GEMM's time, and an
/// f32 elementwise kernel its memory bound). For a bf16 or f16 result the
/// exponent is the rounded product, whose error (up to 3.6e-6 relative,
/// docs/numerics.md) lies far below the 2^-9 or 2^-12 to which the result
/// is rounded. An f32 result adds the product's rounding error back
/// (exactly, by an FMA, with the constant's own), as a factor 1 + c on the
/// power: a few f32 ulps in all, for two FMAs, an add and two multiplies.
Value sigmoid(OpBuilder &b, Location loc, Value x, Type result) {
  constexpr double kMinusLog2E = -1.4426950408889634;
  Value minusLog2E = f32Constant(b, loc, kMinusLog2E);
  Value p = arith::MulFOp::create(b, loc, x, minusLog2E);
  Value e = emitPtxUnaryF32(b, loc, "ex2.approx.ftz.f32", p);
  if (!result.isBF16() && !result.isF16()) {
    // r = x (-log2 e) - p, exactly, plus x times what -log2 e lost to f32.
    const double lost =
        kMinusLog2E - static_cast<double>(static_cast<float>(kMinusLog2E));
    Value r = math::FmaOp::create(b, loc, x, minusLog2E,
                                  arith::NegFOp::create(b, loc, p));
    r = math::FmaOp::create(b, loc, x, f32Constant(b, loc, lost), r);
    // 2^(p + r) = 2^p (1 + r ln 2), a product and not an FMA: 2^p may be
    // infinite (x <= -88.72), and inf + inf (1 + r ln 2 - 1) is NaN when r
    // is negative. The factor stays in [0.5, 2], so that it never flips
    // the sign of inf: r is at most half an ulp of p, beyond 1 only where
    // 2^p is already 0 or inf (|x| > 1.1e7), and NaN for an infinite x
    // (inf - inf), which maxnum and minnum turn into -0.5.
    Value c = arith::MulFOp::create(b, loc, r, f32Constant(b, loc, M_LN2));
    c = arith::MaxNumFOp::create(b, loc, c, f32Constant(b, loc, -0.5));
    c = arith::MinNumFOp::create(b, loc, c, f32Constant(b, loc, 1.0));
    e = arith::MulFOp::create(
        b, loc, e, arith::AddFOp::create(b, loc, f32Constant(b, loc, 1.0), c));
  }
  return emitPtxUnaryF32(
      b, loc, "rcp.approx.ftz.f32",
      arith::AddFOp::create(b, loc, f32Constant(b, loc, 1.0), e));
}

/// tanh of `x` (f32) for an op whose result is rounded to `result` (as
/// for sigmoid).
/// A bf16 result gets the SM's tanh.approx.f32 (sm_75 on; bf16 kernels
/// need sm_80 anyway): one MUFU instruction instead of libdevice's dozen,
/// with a relative error of about 1.1e-5 (docs/numerics.md), 175 times
/// below the 2^-9 to which the result is rounded. Wider results keep
/// libdevice's tanh.
Value tanhFor(OpBuilder &b, Location loc, Value x, Type result) {
  if (!result.isBF16())
    return math::TanhOp::create(b, loc, x);
  return emitPtxUnaryF32(b, loc, "tanh.approx.f32", x);
}

/// e^x for an op computed to `precision`. Rounded to f16 or bf16, it is
/// 2^(x log2 e) on ex2.approx (one MUFU instruction) from the rounded
/// product: the product's rounding is an absolute error of at most
/// |x log2 e| 2^-24 in the exponent, a relative one of |x| 2^-24 in the
/// result, under 2^-17 wherever e^x is a finite nonzero bf16 (|x| < 89.5)
/// and 2^-20 for f16 (|x| < 17.4), with ex2's own 2^-22 on top: far below
/// the 2^-9 and 2^-12 of the rounding that follows (docs/numerics.md).
/// libdevice's expf spends eleven instructions on f32's last ulps, and a
/// 16-bit softmax is bound as much by its instructions as by memory. bf16
/// keeps f32's range, so its ex2 does not flush subnormal results.
Value expFor(OpBuilder &b, Location loc, Value x, Type precision) {
  if (!precision.isBF16() && !precision.isF16())
    return math::ExpOp::create(b, loc, x);
  Value p =
      arith::MulFOp::create(b, loc, x, f32Constant(b, loc, 1.4426950408889634));
  return emitPtxUnaryF32(
      b, loc, precision.isF16() ? "ex2.approx.ftz.f32" : "ex2.approx.f32", p);
}

/// GELU: with erf, x Phi(x) on one polynomial (FastMath.h); with tanh,
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) written as h + h t for
/// h = x / 2: one FMA where 1 + t and the product were two.
Value gelu(OpBuilder &b, Location loc, Value x, GeluApproximation kind,
           Type result) {
  if (kind != GeluApproximation::tanh)
    return emitGeluErf(b, loc, x, result);
  // x (sqrt(2/pi) + sqrt(2/pi) 0.044715 x^2)
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value scale = math::FmaOp::create(
      b, loc, x2, f32Constant(b, loc, kSqrt2OverPi * 0.044715),
      f32Constant(b, loc, kSqrt2OverPi));
  Value t = tanhFor(b, loc, arith::MulFOp::create(b, loc, x, scale), result);
  Value half = arith::MulFOp::create(b, loc, f32Constant(b, loc, 0.5), x);
  return math::FmaOp::create(b, loc, half, t, half);
}

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

/// x / d on signed integers as the dialect defines it (docs/numerics.md):
/// truncated toward zero, x / 0 = -1 (what the GPU's division gives, and
/// XLA's choice) and MIN / -1 = MIN (the negation wraps). LLVM's sdiv is
/// undefined for both, so the division itself sees a divisor of 1 there.
Value divideIntegers(OpBuilder &b, Location loc, Value x, Value d) {
  Type type = x.getType();
  Value zero = zeroOf(b, loc, type);
  Value minusOne = intConstant(b, loc, type, -1);
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, zero);
  Value byMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, minusOne);
  Value special = arith::OrIOp::create(b, loc, byZero, byMinusOne);
  Value one = intConstant(b, loc, type, 1);
  Value safe = arith::SelectOp::create(b, loc, special, one, d);
  Value quotient = arith::DivSIOp::create(b, loc, x, safe);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  quotient = arith::SelectOp::create(b, loc, byMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, byZero, minusOne, quotient);
}

/// An f32 `x` to the signed integer type `target` as the dialect defines
/// it: truncated toward zero, saturated at the type's range, NaN to 0
/// (PTX's cvt.rzi.sat and Rust's `as`). LLVM's fptosi is poison out of
/// range; a select never passes on the poison of the arm it does not take.
Value floatToInteger(OpBuilder &b, Location loc, Value x, Type target) {
  const unsigned width = target.getIntOrFloatBitWidth();
  // -2^(w-1) and 2^(w-1) are exact in f32; every f32 between them
  // truncates into range.
  const double limit = std::ldexp(1.0, static_cast<int>(width) - 1);
  Value truncated = arith::FPToSIOp::create(b, loc, target, x);
  Value tooHigh = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                        f32Constant(b, loc, limit));
  Value tooLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                       f32Constant(b, loc, -limit));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  const llvm::APInt max = llvm::APInt::getSignedMaxValue(width);
  const llvm::APInt min = llvm::APInt::getSignedMinValue(width);
  Value result = arith::SelectOp::create(
      b, loc, tooHigh,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(target, max)),
      truncated);
  result = arith::SelectOp::create(
      b, loc, tooLow,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(target, min)), result);
  return arith::SelectOp::create(b, loc, isNaN, zeroOf(b, loc, target), result);
}

/// Converts `x` (compute type of `from`) to the compute type of `to`, with
/// the rounding a cast to `to` implies.
Value convert(OpBuilder &b, Location loc, Value x, Type from, Type to) {
  if (from == to)
    return x;
  Type target = getComputeType(to);
  const bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  const bool fromBool = from.isInteger(1), toBool = to.isInteger(1);
  if (toBool) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   zeroOf(b, loc, x.getType()));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 zeroOf(b, loc, x.getType()));
  }
  Value y;
  if (toFloat) {
    if (fromFloat)
      y = x;
    else if (fromBool)
      y = arith::UIToFPOp::create(b, loc, target, x);
    else
      y = arith::SIToFPOp::create(b, loc, target, x);
    // Round to the narrow type and come back: the cast's only effect in f32.
    if (!to.isF32()) {
      Value narrow = arith::TruncFOp::create(b, loc, to, y);
      y = arith::ExtFOp::create(b, loc, target, narrow);
    }
    return y;
  }
  if (fromFloat)
    return floatToInteger(b, loc, x, target);
  if (fromBool)
    return arith::ExtUIOp::create(b, loc, target, x);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (toWidth > fromWidth)
    return arith::ExtSIOp::create(b, loc, target, x);
  return arith::TruncIOp::create(b, loc, target, x);
}

arith::CmpFPredicate floatPredicate(CompareDirection direction) {
  switch (direction) {
  case CompareDirection::eq:
    return arith::CmpFPredicate::OEQ;
  case CompareDirection::ne:
    return arith::CmpFPredicate::UNE;
  case CompareDirection::lt:
    return arith::CmpFPredicate::OLT;
  case CompareDirection::le:
    return arith::CmpFPredicate::OLE;
  case CompareDirection::gt:
    return arith::CmpFPredicate::OGT;
  case CompareDirection::ge:
    return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown direction");
}

arith::CmpIPredicate intPredicate(CompareDirection direction, bool isBool) {
  switch (direction) {
  case CompareDirection::eq:
    return arith::CmpIPredicate::eq;
  case CompareDirection::ne:
    return arith::CmpIPredicate::ne;
  case CompareDirection::lt:
    return isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  case CompareDirection::le:
    return isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
  case CompareDirection::gt:
    return isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
  case CompareDirection::ge:
    return isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown direction");
}

template <typename FloatOp, typename IntOp>
Value binary(OpBuilder &b, Location loc, ValueRange operands) {
  if (isa<FloatType>(operands[0].getType()))
    return FloatOp::create(b, loc, operands[0], operands[1]);
  return IntOp::create(b, loc, operands[0], operands[1]);
}

/// `acc + a * b` as one FMA where `add` is a decomposed convolution's sum
/// (the `contract` attribute) and one operand is its f32 product; null
/// elsewhere.
Value contractedSum(OpBuilder &b, Location loc, AddOp add,
                    ValueRange operands) {
  if (!getFuseDialect(b.getContext())
           .getContractAttrHelper()
           .isAttrPresent(add))
    return {};
  for (int i = 0; i < 2; ++i)
    if (auto product = operands[i].getDefiningOp<arith::MulFOp>())
      if (product.getType().isF32() && operands[1 - i].getType().isF32())
        return math::FmaOp::create(b, loc, product.getLhs(), product.getRhs(),
                                   operands[1 - i]);
  return {};
}

} // namespace

FailureOr<Value> emitScalarOp(OpBuilder &b, Operation *op, ValueRange operands,
                              Type roundedTo) {
  Location loc = op->getLoc();
  Value x = operands.empty() ? Value() : operands[0];
  const bool isFloat = x && isa<FloatType>(x.getType());
  // The precision the result is computed to: the 16-bit type it is
  // rounded to, else its own element type.
  auto precisionOf = [&](Value result) -> Type {
    if (roundedTo)
      return roundedTo;
    return cast<RankedTensorType>(result.getType()).getElementType();
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, zeroOf(b, loc, x.getType()), x);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, x);
        // Not math.absi: the NVVM lowering leaves a 64-bit one behind.
        Value negative = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, x, zeroOf(b, loc, x.getType()));
        return arith::SelectOp::create(
            b, loc, negative,
            arith::SubIOp::create(b, loc, zeroOf(b, loc, x.getType()), x), x);
      })
      .Case([&](ExpOp exp) -> Value {
        return expFor(b, loc, x, precisionOf(exp));
      })
      .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, x); })
      .Case([&](SinOp) -> Value { return math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) -> Value { return math::CosOp::create(b, loc, x); })
      .Case([&](SqrtOp) -> Value { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) -> Value { return math::RsqrtOp::create(b, loc, x); })
      .Case([&](TanhOp tanh) -> Value {
        return tanhFor(b, loc, x, precisionOf(tanh));
      })
      .Case([&](ErfOp) -> Value { return emitErfF32(b, loc, x); })
      .Case([&](SigmoidOp op) -> Value {
        return sigmoid(b, loc, x, precisionOf(op));
      })
      .Case([&](SiluOp op) -> Value {
        return arith::MulFOp::create(b, loc, x,
                                     sigmoid(b, loc, x, precisionOf(op)));
      })
      .Case([&](GeluOp gelu_) -> Value {
        return gelu(b, loc, x, gelu_.getApproximate(), precisionOf(gelu_));
      })
      .Case([&](ReciprocalOp) -> Value {
        return arith::DivFOp::create(b, loc, f32Constant(b, loc, 1.0), x);
      })
      .Case([&](ReluOp) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, x,
                                           zeroOf(b, loc, x.getType()));
        return arith::MaxSIOp::create(b, loc, x, zeroOf(b, loc, x.getType()));
      })
      .Case([&](CastOp cast) -> Value {
        return convert(b, loc, x, cast.getInput().getType().getElementType(),
                       cast.getType().getElementType());
      })
      .Case([&](AddOp add) -> Value {
        if (Value fma = contractedSum(b, loc, add, operands))
          return fma;
        return binary<arith::AddFOp, arith::AddIOp>(b, loc, operands);
      })
      .Case([&](SubOp) {
        return binary<arith::SubFOp, arith::SubIOp>(b, loc, operands);
      })
      .Case([&](MulOp) {
        return binary<arith::MulFOp, arith::MulIOp>(b, loc, operands);
      })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return arith::DivFOp::create(b, loc, operands[0], operands[1]);
        return divideIntegers(b, loc, operands[0], operands[1]);
      })
      .Case([&](MaxOp) {
        return binary<arith::MaximumFOp, arith::MaxSIOp>(b, loc, operands);
      })
      .Case([&](MinOp) {
        return binary<arith::MinimumFOp, arith::MinSIOp>(b, loc, operands);
      })
      .Case([&](PowOp) -> Value {
        return math::PowFOp::create(b, loc, operands[0], operands[1]);
      })
      .Case([&](CompareOp compare) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(b, loc,
                                       floatPredicate(compare.getDirection()),
                                       operands[0], operands[1]);
        return arith::CmpIOp::create(
            b, loc,
            intPredicate(compare.getDirection(), x.getType().isInteger(1)),
            operands[0], operands[1]);
      })
      .Case([&](SelectOp) -> Value {
        return arith::SelectOp::create(b, loc, operands[0], operands[1],
                                       operands[2]);
      })
      .Case([&](BroadcastToOp) -> Value { return x; })
      .Case([&](ReshapeOp) -> Value { return x; })
      .Default([&](Operation *other) -> FailureOr<Value> {
        return other->emitError("'")
               << other->getName() << "' is not yet supported for GPU emission";
      });
}

} // namespace opfuse
