//===- KernelLaneOps.cpp - Lane-wise ops of the kernel interpreter --------===//
//
// How one lane of an arith or math op is computed, by family: integer
// arithmetic, comparisons, casts, float arithmetic and functions. The same
// dispatch tells the kernel screen which ops the interpreter knows, so the
// two cannot disagree.
//
//===----------------------------------------------------------------------===//

#include "KernelValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <functional>

using namespace mlir;

namespace opfuse::reference::kernel {

unsigned intWidth(Type type) {
  type = scalarType(type);
  return type.isIndex() ? 64 : cast<IntegerType>(type).getWidth();
}

Type scalarType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

int64_t laneCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

const llvm::fltSemantics *semanticsOf(Type type) {
  if (type.isF32())
    return &llvm::APFloat::IEEEsingle();
  if (type.isF16())
    return &llvm::APFloat::IEEEhalf();
  if (type.isBF16())
    return &llvm::APFloat::BFloat();
  if (type.isF64())
    return &llvm::APFloat::IEEEdouble();
  return nullptr;
}

double roundTo(Type type, double value) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return static_cast<float>(value);
  llvm::APFloat f(value);
  bool lost;
  f.convert(*semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

int64_t byteSize(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * byteSize(vector.getElementType());
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.getWidth() + 7) / 8;
  if (auto real = dyn_cast<FloatType>(type))
    return real.getWidth() / 8;
  return 0;
}

Scalar decode(Type type, const uint8_t *at) {
  uint64_t raw = 0;
  std::memcpy(&raw, at, byteSize(type));
  if (const llvm::fltSemantics *semantics = semanticsOf(type))
    return Scalar::real(
        llvm::APFloat(*semantics, llvm::APInt(byteSize(type) * 8, raw))
            .convertToDouble());
  return Scalar::integer(raw, intWidth(type));
}

void encode(Type type, const Scalar &s, uint8_t *at) {
  uint64_t raw = s.bits;
  if (const llvm::fltSemantics *semantics = semanticsOf(type)) {
    llvm::APFloat f(s.value);
    bool lost;
    f.convert(*semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    raw = f.bitcastToAPInt().getZExtValue();
  }
  std::memcpy(at, &raw, byteSize(type));
}

namespace {

using Family = std::optional<LaneResult>;

LaneResult valueOf(Scalar s) { return {LaneResult::Value, s, ""}; }
LaneResult errorOf(std::string why) {
  return {LaneResult::Error, Scalar(), std::move(why)};
}

/// Integer arithmetic (not comparisons or casts).
Family integerLane(Operation &op, ArrayRef<Scalar> in) {
  Type type = scalarType(op.getResult(0).getType());
  if (!type.isIntOrIndex())
    return std::nullopt;
  const unsigned width = intWidth(type);
  auto integer = [&](uint64_t v) { return valueOf(Scalar::integer(v, width)); };
  const uint64_t a = in[0].bits, b = in.size() > 1 ? in[1].bits : 0;
  const int64_t sa = in[0].signedValue(),
                sb = in.size() > 1 ? in[1].signedValue() : 0;
  return TypeSwitch<Operation *, Family>(&op)
      .Case<arith::AddIOp>([&](auto) { return integer(a + b); })
      .Case<arith::SubIOp>([&](auto) { return integer(a - b); })
      .Case<arith::MulIOp>([&](auto) { return integer(a * b); })
      .Case<arith::AndIOp>([&](auto) { return integer(a & b); })
      .Case<arith::OrIOp>([&](auto) { return integer(a | b); })
      .Case<arith::XOrIOp>([&](auto) { return integer(a ^ b); })
      .Case<arith::ShLIOp>([&](auto) { return integer(a << b); })
      .Case<arith::ShRUIOp>([&](auto) { return integer(a >> b); })
      .Case<arith::ShRSIOp>([&](auto) { return integer(sa >> b); })
      .Case<arith::MinUIOp>([&](auto) { return integer(std::min(a, b)); })
      .Case<arith::MaxUIOp>([&](auto) { return integer(std::max(a, b)); })
      .Case<arith::MinSIOp>([&](auto) { return integer(std::min(sa, sb)); })
      .Case<arith::MaxSIOp>([&](auto) { return integer(std::max(sa, sb)); })
      .Case<arith::DivUIOp, arith::RemUIOp>([&](Operation *o) {
        if (b == 0)
          return errorOf("divides by zero");
        return integer(isa<arith::DivUIOp>(o) ? a / b : a % b);
      })
      .Case<arith::DivSIOp, arith::RemSIOp>([&](Operation *o) {
        // Both are immediate undefined behaviour in LLVM.
        if (sb == 0 || (sb == -1 && sa == in[0].signedMin()))
          return errorOf("divides " + std::to_string(sa) + " by " +
                         std::to_string(sb));
        return integer(isa<arith::DivSIOp>(o) ? sa / sb : sa % sb);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Integer and float comparisons, as arith folds them.
Family compareLane(Operation &op, ArrayRef<Scalar> in) {
  return TypeSwitch<Operation *, Family>(&op)
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        const unsigned width = intWidth(c.getLhs().getType());
        return valueOf(Scalar::integer(
            arith::applyCmpPredicate(c.getPredicate(),
                                     llvm::APInt(width, in[0].bits),
                                     llvm::APInt(width, in[1].bits)),
            1));
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) {
        return valueOf(Scalar::integer(
            arith::applyCmpPredicate(c.getPredicate(),
                                     llvm::APFloat(in[0].value),
                                     llvm::APFloat(in[1].value)),
            1));
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Casts between integer widths, floats and the two.
Family castLane(Operation &op, ArrayRef<Scalar> in) {
  Type type = scalarType(op.getResult(0).getType());
  const unsigned width = type.isIntOrIndex() ? intWidth(type) : 0;
  auto integer = [&](uint64_t v) { return valueOf(Scalar::integer(v, width)); };
  auto real = [&](double v) { return valueOf(Scalar::real(roundTo(type, v))); };
  return TypeSwitch<Operation *, Family>(&op)
      .Case<arith::ExtUIOp, arith::IndexCastUIOp, arith::TruncIOp>(
          [&](auto) { return integer(in[0].bits); })
      .Case<arith::ExtSIOp, arith::IndexCastOp>(
          [&](auto) { return integer(in[0].signedValue()); })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [&](auto) { return real(in[0].value); })
      .Case<arith::UIToFPOp>(
          [&](auto) { return real(static_cast<double>(in[0].bits)); })
      .Case<arith::SIToFPOp>(
          [&](auto) { return real(static_cast<double>(in[0].signedValue())); })
      .Case<arith::FPToSIOp, arith::FPToUIOp>([&](Operation *o) {
        // Out of range (or NaN) the result is poison, as in LLVM.
        const double x = std::trunc(in[0].value);
        const bool isSigned = isa<arith::FPToSIOp>(o);
        const double lo = isSigned ? -std::ldexp(1.0, width - 1) : 0;
        const double hi = std::ldexp(1.0, isSigned ? width - 1 : width);
        if (!(x >= lo && x < hi))
          return valueOf(Scalar());
        return integer(isSigned ? static_cast<uint64_t>(static_cast<int64_t>(x))
                                : static_cast<uint64_t>(x));
      })
      .Case<arith::BitcastOp>([&](arith::BitcastOp c) -> Family {
        Type from = c.getIn().getType();
        if (from.isF32() && type.isInteger(32))
          return integer(llvm::APFloat(static_cast<float>(in[0].value))
                             .bitcastToAPInt()
                             .getZExtValue());
        if (from.isInteger(32) && type.isF32())
          return valueOf(Scalar::real(llvm::APFloat(llvm::APFloat::IEEEsingle(),
                                                    llvm::APInt(32, in[0].bits))
                                          .convertToDouble()));
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Float arithmetic and functions: f32's basic operations round once, as
/// the GPU's do; the rest are exact, rounded to the type.
Family floatLane(Operation &op, ArrayRef<Scalar> in) {
  Type type = scalarType(op.getResult(0).getType());
  if (!isa<FloatType>(type))
    return std::nullopt;
  auto real = [&](double v) { return valueOf(Scalar::real(roundTo(type, v))); };
  const double x = in[0].value, y = in.size() > 1 ? in[1].value : 0;
  auto binary = [&](auto fn) {
    if (type.isF32())
      return valueOf(Scalar::real(static_cast<float>(
          fn(static_cast<float>(x), static_cast<float>(y)))));
    return real(fn(x, y));
  };
  auto nanOr = [&](double v) {
    return real(std::isnan(x) || std::isnan(y) ? NAN : v);
  };
  return TypeSwitch<Operation *, Family>(&op)
      .Case<arith::AddFOp>([&](auto) { return binary(std::plus<>()); })
      .Case<arith::SubFOp>([&](auto) { return binary(std::minus<>()); })
      .Case<arith::MulFOp>([&](auto) { return binary(std::multiplies<>()); })
      .Case<arith::DivFOp>([&](auto) { return binary(std::divides<>()); })
      .Case<arith::RemFOp>([&](auto) { return real(std::fmod(x, y)); })
      .Case<arith::NegFOp>([&](auto) { return real(-x); })
      .Case<math::AbsFOp>([&](auto) { return real(std::fabs(x)); })
      .Case<math::FmaOp>([&](auto) {
        if (type.isF32())
          return valueOf(Scalar::real(
              std::fma(static_cast<float>(x), static_cast<float>(y),
                       static_cast<float>(in[2].value))));
        return real(std::fma(x, y, in[2].value));
      })
      .Case<arith::MaxNumFOp>([&](auto) { return real(std::fmax(x, y)); })
      .Case<arith::MinNumFOp>([&](auto) { return real(std::fmin(x, y)); })
      .Case<arith::MaximumFOp>([&](auto) { return nanOr(std::fmax(x, y)); })
      .Case<arith::MinimumFOp>([&](auto) { return nanOr(std::fmin(x, y)); })
      .Case<math::CopySignOp>([&](auto) { return real(std::copysign(x, y)); })
      .Case<math::PowFOp>([&](auto) { return real(std::pow(x, y)); })
      .Case<math::FloorOp>([&](auto) { return real(std::floor(x)); })
      .Case<math::CeilOp>([&](auto) { return real(std::ceil(x)); })
      .Case<math::TruncOp>([&](auto) { return real(std::trunc(x)); })
      .Case<math::RoundEvenOp>([&](auto) { return real(std::nearbyint(x)); })
      .Case<math::RoundOp>([&](auto) { return real(std::round(x)); })
      .Case<math::ExpOp>([&](auto) { return real(std::exp(x)); })
      .Case<math::Exp2Op>([&](auto) { return real(std::exp2(x)); })
      .Case<math::ExpM1Op>([&](auto) { return real(std::expm1(x)); })
      .Case<math::LogOp>([&](auto) { return real(std::log(x)); })
      .Case<math::Log2Op>([&](auto) { return real(std::log2(x)); })
      .Case<math::Log1pOp>([&](auto) { return real(std::log1p(x)); })
      .Case<math::TanhOp>([&](auto) { return real(std::tanh(x)); })
      .Case<math::ErfOp>([&](auto) { return real(std::erf(x)); })
      .Case<math::SinOp>([&](auto) { return real(std::sin(x)); })
      .Case<math::CosOp>([&](auto) { return real(std::cos(x)); })
      .Case<math::SqrtOp>([&](auto) { return real(std::sqrt(x)); })
      .Case<math::RsqrtOp>([&](auto) { return real(1.0 / std::sqrt(x)); })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

LaneResult evaluateLaneOp(Operation &op, ArrayRef<Scalar> in) {
  if (op.getNumResults() != 1 || op.getNumOperands() == 0 ||
      in.size() != op.getNumOperands())
    return LaneResult();
  for (Family (*family)(Operation &, ArrayRef<Scalar>) :
       {integerLane, compareLane, castLane, floatLane})
    if (Family result = family(op, in))
      return *result;
  return LaneResult();
}

bool isLaneOp(Operation &op) {
  // Every family answers on any operands; ones decide nothing but the op.
  Scalar one = Scalar::integer(1, 64);
  one.value = 1.0;
  llvm::SmallVector<Scalar, 3> in(op.getNumOperands(), one);
  return evaluateLaneOp(op, in).kind != LaneResult::Unknown;
}

} // namespace opfuse::reference::kernel
