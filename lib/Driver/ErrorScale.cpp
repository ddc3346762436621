//===- ErrorScale.cpp - How far rounding may move each output element -----===//
//
// First-order forward error analysis, built as fuse ops in the probe
// function the reference interprets: for every computed float value v, E(v)
// bounds at each element how far an evaluation that rounds differently
// (f32 inside a kernel, another summation order, one more or one less
// rounding to bf16) can be from the reference, in units of the rounding
// unit of the output's precision: E(v) = max(|v|, m, sum over operands of
// |dv/dx| E(x)) (the sum taken as a maximum: a scale, not a proof; m the
// smallest normal number of v's type, where rounding turns absolute). Inputs
// and constants are exact (E = 0, no tensor built). docs/numerics.md gives
// the rule of each op and the reasoning.
//
//===----------------------------------------------------------------------===//

#include "CheckTolerance.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

RankedTensorType asF32(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(),
                               Float32Type::get(type.getContext()));
}

class ErrorScaleBuilder {
public:
  explicit ErrorScaleBuilder(OpBuilder &b) : b(b) {}

  /// Computes E for every float result of `op` (after its operands').
  void visit(Operation *op);

  /// E of `value`; null where it is exact.
  Value scaleOf(Value value) const { return scales.lookup(value); }

private:
  /// `value` as f32 (a cast where it is narrower).
  Value f32(Value value) {
    if (cast<RankedTensorType>(value.getType()).getElementType().isF32())
      return value;
    auto [it, inserted] = widened.try_emplace(value);
    if (inserted)
      it->second =
          CastOp::create(b, loc, asF32(value.getType()), value).getResult();
    return it->second;
  }
  /// The smallest normal number of `value`'s element type.
  Value smallestNormal(Value value) {
    auto element = cast<FloatType>(
        cast<RankedTensorType>(value.getType()).getElementType());
    return constant(APFloat::getSmallestNormalized(element.getFloatSemantics())
                        .convertToDouble());
  }
  Value magnitude(Value value) {
    auto [it, inserted] = magnitudes.try_emplace(value);
    if (inserted)
      it->second = AbsOp::create(b, loc, f32(value)).getResult();
    return it->second;
  }
  Value constant(double value) {
    auto type = RankedTensorType::get({}, b.getF32Type());
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
  }
  // Null operands are zero.
  Value mul(Value x, Value y) {
    return x && y ? MulOp::create(b, loc, x, y).getResult() : Value();
  }
  Value div(Value x, Value y) {
    return x && y ? DivOp::create(b, loc, x, y).getResult() : Value();
  }
  Value max(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return MaxOp::create(b, loc, x, y).getResult();
  }
  Value add(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return AddOp::create(b, loc, x, y).getResult();
  }
  /// `op` again with its float operands replaced by `replace(operand)`
  /// (zeros where that is null) and its result as f32: the same data
  /// movement, reduction or contraction applied to scales.
  Value applyTo(Operation *op, llvm::function_ref<Value(Value)> replace);

  /// What reaches the result of `op` from its operands' errors.
  Value propagated(Operation *op);

  OpBuilder &b;
  Location loc = b.getUnknownLoc();
  DenseMap<Value, Value> scales, widened, magnitudes;
};

Value ErrorScaleBuilder::applyTo(Operation *op,
                                 llvm::function_ref<Value(Value)> replace) {
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    if (!isFloatTensor(operand))
      continue;
    Value scale = replace(operand);
    if (!scale)
      scale = MulOp::create(b, loc, f32(operand), constant(0.0));
    mapping.map(operand, scale);
  }
  Operation *copy = b.clone(*op, mapping);
  copy->getResult(0).setType(asF32(copy->getResult(0).getType()));
  return copy->getResult(0);
}

Value ErrorScaleBuilder::propagated(Operation *op) {
  auto operandScale = [&](unsigned i) {
    return i < op->getNumOperands() ? scaleOf(op->getOperand(i)) : Value();
  };
  Value x = operandScale(0), y = operandScale(1);
  Value v = op->getNumResults() ? magnitude(op->getResult(0)) : Value();
  const bool anyError = llvm::any_of(op->getOperands(), [&](Value operand) {
    return static_cast<bool>(scaleOf(operand));
  });
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<AddOp, SubOp, MaxOp, MinOp, NegOp, AbsOp, ReluOp>(
          [&](Operation *) { return max(x, y); })
      .Case([&](SelectOp) { return max(operandScale(1), operandScale(2)); })
      .Case([&](CastOp cast) -> Value {
        return isFloatTensor(cast.getInput()) ? x : Value();
      })
      .Case([&](MulOp mulOp) {
        return max(mul(magnitude(mulOp.getRhs()), x),
                   mul(magnitude(mulOp.getLhs()), y));
      })
      .Case([&](DivOp divOp) -> Value {
        if (!isFloatTensor(divOp.getResult()))
          return Value();
        Value d = magnitude(divOp.getRhs());
        return max(div(x, d), div(mul(v, y), d));
      })
      .Case([&](ExpOp) { return mul(v, x); })
      .Case([&](LogOp logOp) { return div(x, magnitude(logOp.getInput())); })
      .Case([&](SqrtOp) { return div(mul(x, constant(0.5)), v); })
      .Case([&](RsqrtOp r) {
        return div(mul(mul(v, x), constant(0.5)), magnitude(r.getInput()));
      })
      .Case([&](ReciprocalOp r) {
        return div(mul(v, x), magnitude(r.getInput()));
      })
      .Case([&](PowOp p) -> Value {
        Value base = magnitude(p.getLhs());
        Value viaBase = div(mul(mul(magnitude(p.getRhs()), v), x), base);
        Value viaExponent =
            y ? mul(mul(v, AbsOp::create(b, loc, LogOp::create(b, loc, base))),
                    y)
              : Value();
        return max(viaBase, viaExponent);
      })
      .Case([&](TanhOp) -> Value {
        // tanh' = 1 - tanh^2.
        if (!x)
          return Value();
        Value slope = AbsOp::create(
            b, loc, SubOp::create(b, loc, constant(1.0), mul(v, v)));
        return mul(slope, x);
      })
      .Case([&](SigmoidOp) -> Value {
        // sigmoid' = s (1 - s).
        if (!x)
          return Value();
        Value slope = mul(
            v, AbsOp::create(b, loc, SubOp::create(b, loc, constant(1.0), v)));
        return mul(slope, x);
      })
      .Case([&](ErfOp e) -> Value {
        // erf' = 2/sqrt(pi) e^(-x^2) <= 1.13.
        if (!x)
          return Value();
        Value in = f32(e.getInput());
        Value slope = ExpOp::create(b, loc, NegOp::create(b, loc, mul(in, in)));
        return mul(mul(slope, constant(1.1284)), x);
      })
      .Case<GeluOp, SiluOp>([&](Operation *) {
        // Both slopes stay within [-0.1, 1.13].
        return x ? mul(x, constant(1.13)) : Value();
      })
      .Case<ReduceSumOp, ReduceMeanOp>([&](Operation *reduce) -> Value {
        // An f32 sum of n terms is off by ulps of the sum of their
        // magnitudes whatever its inputs: only the order differs.
        Value input = reduce->getOperand(0);
        const bool f32Sum =
            cast<RankedTensorType>(input.getType()).getElementType().isF32();
        if (!x && !f32Sum)
          return Value();
        return applyTo(reduce, [&](Value operand) {
          return f32Sum ? max(magnitude(operand), x) : x;
        });
      })
      .Case([&](ReduceMaxOp reduce) -> Value {
        return x ? applyTo(reduce, [&](Value) { return x; }) : Value();
      })
      .Case<MatmulOp, Conv2DOp>([&](Operation *contraction) -> Value {
        // Inputs of a bf16 or f16 contraction are exact and its f32
        // accumulation is far below their rounding; f32 (and TF32, whose
        // tolerance --check widens) shows its accumulation order at the
        // scale of |lhs| @ |rhs|.
        const bool f32Contraction =
            cast<RankedTensorType>(contraction->getOperand(0).getType())
                .getElementType()
                .isF32();
        if (!anyError && !f32Contraction)
          return Value();
        return applyTo(contraction, [&](Value operand) {
          return add(magnitude(operand), scaleOf(operand));
        });
      })
      .Case<ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp, GatherOp>(
          [&](Operation *movement) -> Value {
            if (!anyError)
              return Value();
            return applyTo(movement,
                           [&](Value operand) { return scaleOf(operand); });
          })
      .Default([](Operation *) { return Value(); });
}

/// Data movement rounds nothing: exact values stay exact.
bool rounds(Operation *op) {
  return !isa<ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp,
              GatherOp, ConstantOp>(op);
}

void ErrorScaleBuilder::visit(Operation *op) {
  if (op->getNumResults() != 1 || !isFloatTensor(op->getResult(0)))
    return;
  Value result = op->getResult(0);
  Value p = propagated(op);
  if (!p && !rounds(op))
    return;
  // A rounding into the subnormal range errs by up to half the subnormal
  // spacing, the unit roundoff of the smallest normal number, however small
  // the value: an f16 matmul result of 1.9e-5 is only good to 0.3%, which a
  // reciprocal after it turns into 5 ulps of its normal result.
  Value floor = rounds(op) ? smallestNormal(result) : Value();
  scales[result] = max(max(magnitude(result), floor), p);
}

} // namespace

SmallVector<Value> buildErrorScales(func::FuncOp probe) {
  Operation *terminator = probe.front().getTerminator();
  OpBuilder b(terminator);
  ErrorScaleBuilder builder(b);
  SmallVector<Operation *> ops;
  for (Operation &op : probe.front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops)
    builder.visit(op);
  SmallVector<Value> result;
  for (Value returned : terminator->getOperands())
    result.push_back(isFloatTensor(returned) ? builder.scaleOf(returned)
                                             : Value());
  return result;
}

} // namespace opfuse
