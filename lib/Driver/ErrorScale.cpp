//===- ErrorScale.cpp - How far rounding may move each output element -----===//
//
// First-order forward error analysis, built as fuse ops in the probe
// function the reference interprets: for every computed float value v, E(v)
// bounds at each element how far an evaluation that rounds differently
// (f32 inside a kernel, another summation order, one more or one less
// rounding to bf16) can be from the reference, in units of the rounding
// unit of the output's precision: E(v) = max(|v|, m, sum over operands of
// |dv/dx| E(x), A) (the sum taken as a maximum for sums, whose |v| covers
// terms of one sign, and added up for products and quotients, whose
// relative errors add: a scale, not a proof; m the smallest normal number
// of v's type, where rounding turns absolute; A what an approximation the
// kernels use adds). Inputs and constants are exact (E = 0, no tensor
// built).
//
// A comparison is discontinuous: where its operands lie within their
// rounding of each other, an evaluation that rounds differently can decide
// it the other way, and a select after it takes the other branch. T(v)
// carries that, in v's own units: 1 at the elements of a comparison that
// are undecided, |t - f| times the condition's T at a select, and through
// other ops by the same first-order rules as E (without E's rounding
// terms). docs/numerics.md gives the rule of each op and the reasoning.
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

/// The relative error --check accepts at a precision rank.
double elementToleranceOfRank(int rank) {
  static constexpr DType kByRank[] = {DType::I32, DType::F32, DType::F16,
                                      DType::BF16};
  return toleranceFor(kByRank[rank]).element;
}

/// E per |x| of a bf16 tanh GELU on tanh.approx.f32: 0.5 * 1.12e-5 / 2^-8.
constexpr double kTanhApproxGeluScale = 0.5 * 1.12e-5 * 256;

/// Operands an op moves or combines as data: all but a gather's indices.
bool isDataOperand(Operation *op, unsigned index) {
  return !(isa<GatherOp>(op) && index == 1);
}

RankedTensorType asF32(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(),
                               Float32Type::get(type.getContext()));
}

class ErrorScaleBuilder {
public:
  explicit ErrorScaleBuilder(OpBuilder &b) : b(b) {}

  /// Computes E and T for the result of `op` (after its operands').
  void visit(Operation *op);

  /// E of `value`; null where it is exact.
  Value scaleOf(Value value) const { return scales.lookup(value); }
  /// T of `value`; null where no undecided comparison reaches it.
  Value tieOf(Value value) const { return ties.lookup(value); }

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
  Value sub(Value x, Value y) {
    return SubOp::create(b, loc, x, y).getResult();
  }
  /// `op` again with its data operands replaced by `replace(operand)`
  /// (zeros where that is null) and its result as f32: the same data
  /// movement, reduction or contraction applied to scales.
  Value applyTo(Operation *op, llvm::function_ref<Value(Value)> replace);

  /// What reaches the result of `op` from its operands' E (`in` = scales)
  /// or T (`in` = ties).
  Value propagated(Operation *op, const DenseMap<Value, Value> &in);

  /// T of the result of `op`: the comparison and select rules, else
  /// propagated.
  Value tieThrough(Operation *op);
  /// What an approximation the kernels use adds beyond rounding (the tanh
  /// GELU's tanh.approx); null where none.
  Value approximation(Operation *op);
  /// 1 where `compare`'s operands lie within their rounding (E at their
  /// precision's tolerance, plus their own T) of each other, else 0; null
  /// where both are exact.
  Value undecided(CompareOp compare);

  OpBuilder &b;
  Location loc = b.getUnknownLoc();
  DenseMap<Value, Value> scales, ties, widened, magnitudes;
  /// Per value, the coarsest precision rank among the op results it is
  /// computed from, its own included (arguments are exact: 0).
  DenseMap<Value, int> coarsest;
};

Value ErrorScaleBuilder::applyTo(Operation *op,
                                 llvm::function_ref<Value(Value)> replace) {
  IRMapping mapping;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (!isDataOperand(op, index))
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

Value ErrorScaleBuilder::propagated(Operation *op,
                                    const DenseMap<Value, Value> &in) {
  // T has no rounding terms of its own: only what its operands carry.
  const bool forTies = &in == &ties;
  auto scaleOf = [&](Value value) { return in.lookup(value); };
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
      // |sin'| and |cos'| are at most 1.
      .Case<SinOp, CosOp>([&](Operation *) { return x; })
      .Case([&](SelectOp) { return max(operandScale(1), operandScale(2)); })
      .Case([&](CastOp cast) -> Value {
        return isFloatTensor(cast.getInput()) ? x : Value();
      })
      .Case([&](MulOp mulOp) {
        return add(mul(magnitude(mulOp.getRhs()), x),
                   mul(magnitude(mulOp.getLhs()), y));
      })
      .Case([&](DivOp divOp) -> Value {
        if (!isFloatTensor(divOp.getResult()))
          return Value();
        Value d = magnitude(divOp.getRhs());
        return add(div(x, d), div(mul(v, y), d));
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
            !forTies &&
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
            !forTies &&
            cast<RankedTensorType>(contraction->getOperand(0).getType())
                .getElementType()
                .isF32();
        if (!anyError && !f32Contraction)
          return Value();
        Value bound = applyTo(contraction, [&](Value operand) {
          return add(magnitude(operand), scaleOf(operand));
        });
        // T is a distance, not a scale: what the operands' T adds to
        // |lhs| @ |rhs|.
        if (forTies)
          return AbsOp::create(
              b, loc, sub(bound, applyTo(contraction, [&](Value operand) {
                            return magnitude(operand);
                          })));
        return bound;
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

Value ErrorScaleBuilder::undecided(CompareOp compare) {
  Value lhs = compare.getLhs(), rhs = compare.getRhs();
  if (!isFloatTensor(lhs))
    return Value();
  // How far rounding can move an operand: its E at the tolerance of the
  // coarsest precision it is computed in, plus its own T.
  auto reach = [&](Value operand) {
    Value scale = scaleOf(operand);
    Value moved =
        scale ? mul(scale,
                    constant(elementToleranceOfRank(coarsest.lookup(operand))))
              : Value();
    return add(moved, tieOf(operand));
  };
  Value band = add(reach(lhs), reach(rhs));
  if (!band)
    return Value();
  Value gap = AbsOp::create(b, loc, sub(f32(lhs), f32(rhs)));
  Value within = CompareOp::create(b, loc, CompareDirection::le, gap, band);
  return CastOp::create(b, loc, asF32(within.getType()), within).getResult();
}

Value ErrorScaleBuilder::tieThrough(Operation *op) {
  if (auto compare = dyn_cast<CompareOp>(op))
    return undecided(compare);
  if (auto select = dyn_cast<SelectOp>(op)) {
    Value branches = max(tieOf(select.getOnTrue()), tieOf(select.getOnFalse()));
    Value condition = tieOf(select.getCondition());
    if (!condition)
      return branches;
    Value jump = AbsOp::create(
        b, loc, sub(f32(select.getOnTrue()), f32(select.getOnFalse())));
    return add(branches, mul(condition, jump));
  }
  // A boolean turned into a number jumps by 1 where it flips.
  if (auto cast = dyn_cast<CastOp>(op))
    return tieOf(cast.getInput());
  if (llvm::none_of(op->getOperands(),
                    [&](Value operand) { return tieOf(operand); }))
    return Value();
  return propagated(op, ties);
}

void ErrorScaleBuilder::visit(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return;
  Value result = op->getResult(0);
  int rank = precisionRank(result.getType());
  for (Value operand : op->getOperands())
    rank = std::max(rank, coarsest.lookup(operand));
  coarsest[result] = rank;
  if (Value tie = tieThrough(op))
    ties[result] = tie;
  if (!isFloatTensor(result))
    return;
  Value p = propagated(op, scales);
  if (!p && !rounds(op))
    return;
  // A rounding into the subnormal range errs by up to half the subnormal
  // spacing, the unit roundoff of the smallest normal number, however small
  // the value: an f16 matmul result of 1.9e-5 is only good to 0.3%, which a
  // reciprocal after it turns into 5 ulps of its normal result.
  Value floor = rounds(op) ? smallestNormal(result) : Value();
  scales[result] =
      max(max(max(magnitude(result), floor), p), approximation(op));
}

Value ErrorScaleBuilder::approximation(Operation *op) {
  // A tanh GELU rounded to bf16 runs on tanh.approx.f32 (relative error
  // at most 1.12e-5, docs/numerics.md) as h + h t, h = x / 2: an absolute
  // error of up to |x| 5.6e-6, which on the negative tail, where 1 + t
  // cancels, is many ulps of the result. In rounding units of bf16
  // (2^-8): |x| 5.6e-6 * 256.
  auto gelu = dyn_cast<GeluOp>(op);
  if (!gelu || gelu.getApproximate() != GeluApproximation::tanh)
    return Value();
  auto roundsToBf16 = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType().isBF16();
  };
  Value result = gelu.getResult();
  const bool bf16 = roundsToBf16(result) ||
                    (!result.use_empty() &&
                     llvm::all_of(result.getUsers(), [&](Operation *u) {
                       return isa<CastOp>(u) && roundsToBf16(u->getResult(0));
                     }));
  if (!bf16)
    return Value();
  return mul(magnitude(gelu.getInput()), constant(kTanhApproxGeluScale));
}

} // namespace

SmallVector<ErrorScaleValues> buildErrorScales(func::FuncOp probe) {
  Operation *terminator = probe.front().getTerminator();
  OpBuilder b(terminator);
  ErrorScaleBuilder builder(b);
  SmallVector<Operation *> ops;
  for (Operation &op : probe.front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops)
    builder.visit(op);
  SmallVector<ErrorScaleValues> result;
  for (Value returned : terminator->getOperands())
    result.push_back(
        {isFloatTensor(returned) ? builder.scaleOf(returned) : Value(),
         builder.tieOf(returned)});
  return result;
}

} // namespace opfuse
