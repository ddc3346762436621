//===- ActivationConverters.cpp - ONNX activations built from fuse ops ----===//
//
// The activations ONNX has as ops of their own (HardSwish, LeakyRelu, Elu,
// Softplus, Mish, ...) and fuse does not: each is the formula of the ONNX
// specification written with fuse's elementwise ops and constants of the
// input's element type, so fusion makes one kernel of it and of whatever
// surrounds it. Where the formula as written overflows (Softplus's
// exp(x) for large x) the stable form with the same value is built.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// Elementwise ops over values of one tensor type (rank-0 constants
/// broadcast against it), at one node's location.
class Formula {
public:
  Formula(GraphImporter &g, const Node &node, RankedTensorType type)
      : g(g), loc(node.loc), type(type),
        boolType(
            RankedTensorType::get(type.getShape(), g.builder.getI1Type())) {}

  Value c(double value) { return g.scalar(type.getElementType(), value, loc); }
  Value add(Value a, Value b) {
    return fuse::AddOp::create(g.builder, loc, type, a, b);
  }
  Value sub(Value a, Value b) {
    return fuse::SubOp::create(g.builder, loc, type, a, b);
  }
  Value mul(Value a, Value b) {
    return fuse::MulOp::create(g.builder, loc, type, a, b);
  }
  Value div(Value a, Value b) {
    return fuse::DivOp::create(g.builder, loc, type, a, b);
  }
  Value max(Value a, Value b) {
    return fuse::MaxOp::create(g.builder, loc, type, a, b);
  }
  Value min(Value a, Value b) {
    return fuse::MinOp::create(g.builder, loc, type, a, b);
  }
  Value exp(Value a) { return fuse::ExpOp::create(g.builder, loc, type, a); }
  Value log(Value a) { return fuse::LogOp::create(g.builder, loc, type, a); }
  Value abs(Value a) { return fuse::AbsOp::create(g.builder, loc, type, a); }
  Value tanh(Value a) { return fuse::TanhOp::create(g.builder, loc, type, a); }
  Value less(Value a, Value b) {
    return fuse::CompareOp::create(g.builder, loc, boolType,
                                   fuse::CompareDirection::lt, a, b);
  }
  Value lessEqual(Value a, Value b) {
    return fuse::CompareOp::create(g.builder, loc, boolType,
                                   fuse::CompareDirection::le, a, b);
  }
  Value greater(Value a, Value b) {
    return fuse::CompareOp::create(g.builder, loc, boolType,
                                   fuse::CompareDirection::gt, a, b);
  }
  Value select(Value condition, Value yes, Value no) {
    return fuse::SelectOp::create(g.builder, loc, type, condition, yes, no);
  }
  /// log(1 + exp(x)) as max(x, 0) + log(1 + exp(-|x|)): exp never
  /// overflows, and the value is the same.
  Value softplus(Value x) {
    return add(max(x, c(0)), log(add(c(1), exp(sub(c(0), abs(x))))));
  }
  /// max(0, min(1, alpha x + beta)).
  Value hardSigmoid(Value x, double alpha, double beta) {
    return max(c(0), min(c(1), add(mul(c(alpha), x), c(beta))));
  }

private:
  GraphImporter &g;
  Location loc;
  RankedTensorType type;
  RankedTensorType boolType;
};

/// The body of a one-input float activation: its value from x.
using Body = Value (*)(Formula &, const Node &, GraphImporter &, Value);

template <Body body>
LogicalResult activation(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  if (!in) {
    g.error(node) << "expects an input";
    return failure();
  }
  if (!isa<FloatType>(in.getElementType())) {
    g.error(node) << "needs a float input, not " << in.getElementType();
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  Formula f(g, node, in);
  g.define(node, 0, body(f, node, g, *x));
  return success();
}

Value hardSigmoid(Formula &f, const Node &node, GraphImporter &g, Value x) {
  return f.hardSigmoid(x, g.floatAttr(node, "alpha", 0.2f),
                       g.floatAttr(node, "beta", 0.5f));
}

Value hardSwish(Formula &f, const Node &, GraphImporter &, Value x) {
  return f.mul(x, f.hardSigmoid(x, 1.0 / 6, 0.5));
}

Value leakyRelu(Formula &f, const Node &node, GraphImporter &g, Value x) {
  Value alpha = f.c(g.floatAttr(node, "alpha", 0.01f));
  return f.select(f.less(x, f.c(0)), f.mul(alpha, x), x);
}

Value elu(Formula &f, const Node &node, GraphImporter &g, Value x) {
  Value alpha = f.c(g.floatAttr(node, "alpha", 1.0f));
  return f.select(f.less(x, f.c(0)), f.mul(alpha, f.sub(f.exp(x), f.c(1))), x);
}

Value selu(Formula &f, const Node &node, GraphImporter &g, Value x) {
  // The specification's defaults, to the float's precision.
  Value alpha = f.c(g.floatAttr(node, "alpha", 1.67326319217681884765625f));
  Value gamma = f.c(g.floatAttr(node, "gamma", 1.05070102214813232421875f));
  Value negative = f.sub(f.mul(alpha, f.exp(x)), alpha);
  return f.mul(gamma, f.select(f.lessEqual(x, f.c(0)), negative, x));
}

Value celu(Formula &f, const Node &node, GraphImporter &g, Value x) {
  Value alpha = f.c(g.floatAttr(node, "alpha", 1.0f));
  Value negative = f.mul(alpha, f.sub(f.exp(f.div(x, alpha)), f.c(1)));
  return f.add(f.max(f.c(0), x), f.min(f.c(0), negative));
}

Value softplus(Formula &f, const Node &, GraphImporter &, Value x) {
  return f.softplus(x);
}

Value softsign(Formula &f, const Node &, GraphImporter &, Value x) {
  return f.div(x, f.add(f.c(1), f.abs(x)));
}

Value mish(Formula &f, const Node &, GraphImporter &, Value x) {
  return f.mul(x, f.tanh(f.softplus(x)));
}

Value thresholdedRelu(Formula &f, const Node &node, GraphImporter &g, Value x) {
  Value alpha = f.c(g.floatAttr(node, "alpha", 1.0f));
  return f.select(f.greater(x, alpha), x, f.c(0));
}

/// Sign: 1, -1, or x * 0 (zero, and NaN for NaN), for floats and integers.
LogicalResult sign(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  if (!in || in.getElementType().isInteger(1)) {
    g.error(node) << "needs a numeric input";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  Formula f(g, node, in);
  g.define(node, 0,
           f.select(f.greater(*x, f.c(0)), f.c(1),
                    f.select(f.less(*x, f.c(0)), f.c(-1), f.mul(*x, f.c(0)))));
  return success();
}

/// PRelu(x, slope): slope x where x < 0, the slope broadcast to x's shape.
LogicalResult prelu(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0), slope = g.typeOf(node, 1);
  if (!in || !slope) {
    g.error(node) << "expects 2 inputs";
    return failure();
  }
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(in.getShape(), slope.getShape());
  if (!isa<FloatType>(in.getElementType()) ||
      slope.getElementType() != in.getElementType() || !shape ||
      ArrayRef<int64_t>(*shape) != in.getShape()) {
    g.error(node) << "slope " << slope << " does not broadcast to " << in;
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0), s = g.operand(node, 1);
  if (failed(x) || failed(s))
    return failure();
  Formula f(g, node, in);
  g.define(node, 0, f.select(f.less(*x, f.c(0)), f.mul(*s, *x), *x));
  return success();
}

} // namespace

void registerActivationConverters(llvm::StringMap<Converter> &map) {
  map["HardSigmoid"] = activation<hardSigmoid>;
  map["HardSwish"] = activation<hardSwish>;
  map["LeakyRelu"] = activation<leakyRelu>;
  map["Elu"] = activation<elu>;
  map["Selu"] = activation<selu>;
  map["Celu"] = activation<celu>;
  map["Softplus"] = activation<softplus>;
  map["Softsign"] = activation<softsign>;
  map["Mish"] = activation<mish>;
  map["ThresholdedRelu"] = activation<thresholdedRelu>;
  map["Sign"] = sign;
  map["PRelu"] = prelu;
}

} // namespace opfuse::onnx_import
