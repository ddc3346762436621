//===- ElementwiseConverters.cpp - ONNX elementwise ops as fuse ops -------===//
//
// Unary and binary arithmetic, comparisons, Where, Cast and the
// activations, with NumPy broadcasting as ONNX has it. Integer and boolean
// values the host knows (the shape arithmetic exporters emit) fold there;
// floats always become ops, so their rounding is the compiler's.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// Element `i` of `result` read from `in` by NumPy broadcasting.
int64_t broadcastIndex(ArrayRef<int64_t> result, ArrayRef<int64_t> in,
                       int64_t i) {
  int64_t index = 0, stride = 1;
  for (int64_t d = static_cast<int64_t>(result.size()) - 1,
               e = static_cast<int64_t>(in.size()) - 1;
       d >= 0; --d, --e) {
    const int64_t coordinate = i % result[d];
    i /= result[d];
    if (e < 0)
      continue;
    if (in[e] != 1)
      index += coordinate * stride;
    stride *= in[e];
  }
  return index;
}

bool isInteger(Type type) { return isa<IntegerType>(type); }

/// Folds `fn` over known integer inputs into a host tensor of `element`.
std::optional<HostTensor>
foldIntegers(GraphImporter &g, const Node &node, Type element,
             llvm::function_ref<double(ArrayRef<double>)> fn) {
  SmallVector<const HostTensor *> inputs;
  SmallVector<int64_t> shape;
  for (int i = 0; i < node.inputs(); ++i) {
    const HostTensor *host = g.known(node, i);
    if (!host || !isInteger(host->elementType))
      return std::nullopt;
    std::optional<SmallVector<int64_t>> joined =
        broadcastShapes(shape, host->shape);
    if (!joined)
      return std::nullopt;
    shape = *joined;
    inputs.push_back(host);
  }
  HostTensor out;
  out.elementType = element;
  out.shape = shape;
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (count > kHostElements)
    return std::nullopt;
  out.data.resize(count);
  SmallVector<double> args(inputs.size());
  for (int64_t i = 0; i < count; ++i) {
    for (auto [k, input] : llvm::enumerate(inputs))
      args[k] = input->data[broadcastIndex(shape, input->shape, i)];
    out.data[i] = fn(args);
  }
  return out;
}

template <typename OpTy>
LogicalResult unary(GraphImporter &g, const Node &node) {
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(g.typeOf(node, 0).getElementType()) &&
      !std::is_same_v<OpTy, fuse::NegOp> &&
      !std::is_same_v<OpTy, fuse::AbsOp> &&
      !std::is_same_v<OpTy, fuse::ReluOp>) {
    g.unsupported(node) << "needs a float input, not "
                        << g.typeOf(node, 0).getElementType();
    return failure();
  }
  g.define(node, 0, OpTy::create(g.builder, node.loc, x->getType(), *x));
  return success();
}

/// The broadcast result type of inputs 0 and 1, after a diagnostic when
/// their types or shapes do not combine.
FailureOr<RankedTensorType> binaryType(GraphImporter &g, const Node &node,
                                       Type element) {
  RankedTensorType a = g.typeOf(node, 0), b = g.typeOf(node, 1);
  if (a.getElementType() != b.getElementType()) {
    g.error(node) << "inputs have different element types ("
                  << a.getElementType() << " and " << b.getElementType() << ")";
    return failure();
  }
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(a.getShape(), b.getShape());
  if (!shape) {
    g.error(node) << "shapes " << a << " and " << b << " do not broadcast";
    return failure();
  }
  return RankedTensorType::get(*shape, element ? element : a.getElementType());
}

template <typename OpTy>
LogicalResult binary(GraphImporter &g, const Node &node,
                     double (*fold)(double, double)) {
  if (node.inputs() != 2) {
    g.error(node) << "expects 2 inputs, has " << node.inputs();
    return failure();
  }
  FailureOr<RankedTensorType> type = binaryType(g, node, nullptr);
  if (failed(type))
    return failure();
  if (fold)
    if (std::optional<HostTensor> host = foldIntegers(
            g, node, type->getElementType(),
            [&](ArrayRef<double> a) { return fold(a[0], a[1]); })) {
      g.defineHost(node, 0, std::move(*host));
      return success();
    }
  FailureOr<Value> a = g.operand(node, 0), b = g.operand(node, 1);
  if (failed(a) || failed(b))
    return failure();
  g.define(node, 0, OpTy::create(g.builder, node.loc, *type, *a, *b));
  return success();
}

/// Sum, Max, Min: any number of inputs, folded left to right.
template <typename OpTy>
LogicalResult variadic(GraphImporter &g, const Node &node) {
  FailureOr<Value> acc = g.operand(node, 0);
  if (failed(acc))
    return failure();
  for (int i = 1; i < node.inputs(); ++i) {
    FailureOr<Value> next = g.operand(node, i);
    if (failed(next))
      return failure();
    auto a = cast<RankedTensorType>(acc->getType());
    auto b = cast<RankedTensorType>(next->getType());
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(a.getShape(), b.getShape());
    if (!shape || a.getElementType() != b.getElementType()) {
      g.error(node) << "inputs " << a << " and " << b << " do not combine";
      return failure();
    }
    acc = OpTy::create(g.builder, node.loc,
                       RankedTensorType::get(*shape, a.getElementType()), *acc,
                       *next)
              .getResult();
  }
  g.define(node, 0, *acc);
  return success();
}

LogicalResult compare(GraphImporter &g, const Node &node,
                      fuse::CompareDirection direction,
                      bool (*fold)(double, double)) {
  FailureOr<RankedTensorType> type = binaryType(g, node, g.builder.getI1Type());
  if (failed(type))
    return failure();
  if (std::optional<HostTensor> host =
          foldIntegers(g, node, g.builder.getI1Type(), [&](ArrayRef<double> a) {
            return fold(a[0], a[1]) ? 1.0 : 0.0;
          })) {
    g.defineHost(node, 0, std::move(*host));
    return success();
  }
  FailureOr<Value> a = g.operand(node, 0), b = g.operand(node, 1);
  if (failed(a) || failed(b))
    return failure();
  g.define(
      node, 0,
      fuse::CompareOp::create(g.builder, node.loc, *type, direction, *a, *b));
  return success();
}

LogicalResult where(GraphImporter &g, const Node &node) {
  RankedTensorType c = g.typeOf(node, 0), x = g.typeOf(node, 1),
                   y = g.typeOf(node, 2);
  if (!c || !x || !y) {
    g.error(node) << "expects 3 inputs";
    return failure();
  }
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(c.getShape(), x.getShape());
  if (shape)
    shape = broadcastShapes(*shape, y.getShape());
  if (!shape || x.getElementType() != y.getElementType() ||
      !c.getElementType().isInteger(1)) {
    g.error(node) << "inputs " << c << ", " << x << " and " << y
                  << " do not make a Where";
    return failure();
  }
  if (std::optional<HostTensor> host =
          foldIntegers(g, node, x.getElementType(), [](ArrayRef<double> a) {
            return a[0] != 0 ? a[1] : a[2];
          })) {
    g.defineHost(node, 0, std::move(*host));
    return success();
  }
  FailureOr<Value> cv = g.operand(node, 0), xv = g.operand(node, 1),
                   yv = g.operand(node, 2);
  if (failed(cv) || failed(xv) || failed(yv))
    return failure();
  g.define(
      node, 0,
      fuse::SelectOp::create(g.builder, node.loc,
                             RankedTensorType::get(*shape, x.getElementType()),
                             *cv, *xv, *yv));
  return success();
}

LogicalResult castOp(GraphImporter &g, const Node &node) {
  std::optional<int64_t> to = g.intAttr(node, "to");
  if (!to) {
    g.error(node) << "has no 'to' attribute";
    return failure();
  }
  Type element = g.elementType(*to, node.loc);
  if (!element)
    return failure();
  RankedTensorType in = g.typeOf(node, 0);
  if (const HostTensor *host = g.known(node, 0);
      host && isInteger(element) && isInteger(host->elementType)) {
    HostTensor out = *host;
    out.elementType = element;
    if (element.isInteger(1))
      for (double &v : out.data)
        v = v != 0;
    g.defineHost(node, 0, std::move(out));
    return success();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  if (in.getElementType() == element) {
    g.define(node, 0, *x);
    return success();
  }
  g.define(node, 0,
           fuse::CastOp::create(g.builder, node.loc,
                                RankedTensorType::get(in.getShape(), element),
                                *x));
  return success();
}

LogicalResult gelu(GraphImporter &g, const Node &node) {
  std::string approximate = g.stringAttr(node, "approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    g.error(node) << "approximate = '" << approximate
                  << "' is neither 'none' nor 'tanh'";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  g.define(node, 0,
           fuse::GeluOp::create(g.builder, node.loc, x->getType(), *x,
                                approximate == "tanh"
                                    ? fuse::GeluApproximation::tanh
                                    : fuse::GeluApproximation::none));
  return success();
}

LogicalResult pow(GraphImporter &g, const Node &node) {
  RankedTensorType base = g.typeOf(node, 0), exponent = g.typeOf(node, 1);
  if (!base || !exponent) {
    g.error(node) << "expects 2 inputs";
    return failure();
  }
  if (!isa<FloatType>(base.getElementType())) {
    g.unsupported(node) << "integer powers are not supported (base "
                        << base.getElementType() << ")";
    return failure();
  }
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(base.getShape(), exponent.getShape());
  if (!shape) {
    g.error(node) << "shapes " << base << " and " << exponent
                  << " do not broadcast";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0), y = g.operand(node, 1);
  if (failed(x) || failed(y))
    return failure();
  Value e = *y;
  // ONNX lets the exponent have its own type; fuse.pow takes the base's.
  if (exponent.getElementType() != base.getElementType())
    e = fuse::CastOp::create(
        g.builder, node.loc,
        RankedTensorType::get(exponent.getShape(), base.getElementType()), e);
  g.define(node, 0,
           fuse::PowOp::create(
               g.builder, node.loc,
               RankedTensorType::get(*shape, base.getElementType()), *x, e));
  return success();
}

/// Identity, and Dropout at inference (its mask output is not supported).
LogicalResult identity(GraphImporter &g, const Node &node) {
  if (node.proto.op_type() == "Dropout" && node.proto.output_size() > 1 &&
      !node.proto.output(1).empty()) {
    g.unsupported(node) << "its mask output is not supported";
    return failure();
  }
  if (const HostTensor *host = g.known(node, 0)) {
    g.defineHost(node, 0, *host);
    return success();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  g.define(node, 0, *x);
  return success();
}

/// Clip(x, min, max): max(min(x, hi), lo), each bound optional.
LogicalResult clip(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  Value y = *x;
  for (int i : {2, 1}) {
    if (!node.has(i))
      continue;
    RankedTensorType bound = g.typeOf(node, i);
    if (bound.getRank() != 0 || bound.getElementType() != in.getElementType()) {
      g.error(node) << (i == 1 ? "min " : "max ") << bound
                    << " is not a scalar of the input's type";
      return failure();
    }
    FailureOr<Value> b = g.operand(node, i);
    if (failed(b))
      return failure();
    y = i == 2
            ? fuse::MinOp::create(g.builder, node.loc, in, y, *b).getResult()
            : fuse::MaxOp::create(g.builder, node.loc, in, y, *b).getResult();
  }
  g.define(node, 0, y);
  return success();
}

/// Not, And, Or, Xor on booleans, as selects.
LogicalResult logical(GraphImporter &g, const Node &node) {
  const std::string &op = node.proto.op_type();
  Type i1 = g.builder.getI1Type();
  SmallVector<int64_t> shape;
  for (int i = 0; i < node.inputs(); ++i) {
    RankedTensorType t = g.typeOf(node, i);
    std::optional<SmallVector<int64_t>> joined =
        t ? broadcastShapes(shape, t.getShape()) : std::nullopt;
    if (!t || !t.getElementType().isInteger(1) || !joined) {
      g.error(node) << "expects bool inputs that broadcast";
      return failure();
    }
    shape = *joined;
  }
  if (std::optional<HostTensor> host =
          foldIntegers(g, node, i1, [&](ArrayRef<double> a) -> double {
            if (op == "Not")
              return a[0] == 0;
            if (op == "And")
              return a[0] != 0 && a[1] != 0;
            if (op == "Or")
              return a[0] != 0 || a[1] != 0;
            return (a[0] != 0) != (a[1] != 0);
          })) {
    g.defineHost(node, 0, std::move(*host));
    return success();
  }
  auto type = RankedTensorType::get(shape, i1);
  FailureOr<Value> a = g.operand(node, 0);
  if (failed(a))
    return failure();
  Value yes = g.scalar(i1, 1, node.loc);
  Value no = g.scalar(i1, 0, node.loc);
  auto select = [&](Value c, Value t, Value f) -> Value {
    return fuse::SelectOp::create(g.builder, node.loc, type, c, t, f);
  };
  if (op == "Not") {
    g.define(node, 0, select(*a, no, yes));
    return success();
  }
  FailureOr<Value> b = g.operand(node, 1);
  if (failed(b))
    return failure();
  if (op == "And")
    g.define(node, 0, select(*a, *b, no));
  else if (op == "Or")
    g.define(node, 0, select(*a, yes, *b));
  else
    g.define(node, 0, select(*a, select(*b, no, yes), *b));
  return success();
}

double addFold(double a, double b) { return a + b; }
double subFold(double a, double b) { return a - b; }
double mulFold(double a, double b) { return a * b; }
double divFold(double a, double b) {
  // fuse's integer division: toward zero, x / 0 = -1 (docs/numerics.md).
  return b == 0 ? -1 : std::trunc(a / b);
}
bool eqFold(double a, double b) { return a == b; }
bool ltFold(double a, double b) { return a < b; }
bool gtFold(double a, double b) { return a > b; }
bool leFold(double a, double b) { return a <= b; }
bool geFold(double a, double b) { return a >= b; }

} // namespace

void registerElementwiseConverters(llvm::StringMap<Converter> &map) {
  map["Neg"] = unary<fuse::NegOp>;
  map["Abs"] = unary<fuse::AbsOp>;
  map["Exp"] = unary<fuse::ExpOp>;
  map["Log"] = unary<fuse::LogOp>;
  map["Sqrt"] = unary<fuse::SqrtOp>;
  map["Reciprocal"] = unary<fuse::ReciprocalOp>;
  map["Tanh"] = unary<fuse::TanhOp>;
  map["Sin"] = unary<fuse::SinOp>;
  map["Cos"] = unary<fuse::CosOp>;
  map["Relu"] = unary<fuse::ReluOp>;
  map["Sigmoid"] = unary<fuse::SigmoidOp>;
  map["Erf"] = unary<fuse::ErfOp>;
  map["Gelu"] = gelu;
  map["Add"] = [](GraphImporter &g, const Node &n) {
    return binary<fuse::AddOp>(g, n, addFold);
  };
  map["Sub"] = [](GraphImporter &g, const Node &n) {
    return binary<fuse::SubOp>(g, n, subFold);
  };
  map["Mul"] = [](GraphImporter &g, const Node &n) {
    return binary<fuse::MulOp>(g, n, mulFold);
  };
  map["Div"] = [](GraphImporter &g, const Node &n) {
    return binary<fuse::DivOp>(g, n, divFold);
  };
  map["Pow"] = pow;
  map["Sum"] = variadic<fuse::AddOp>;
  map["Max"] = variadic<fuse::MaxOp>;
  map["Min"] = variadic<fuse::MinOp>;
  map["Equal"] = [](GraphImporter &g, const Node &n) {
    return compare(g, n, fuse::CompareDirection::eq, eqFold);
  };
  map["Less"] = [](GraphImporter &g, const Node &n) {
    return compare(g, n, fuse::CompareDirection::lt, ltFold);
  };
  map["Greater"] = [](GraphImporter &g, const Node &n) {
    return compare(g, n, fuse::CompareDirection::gt, gtFold);
  };
  map["LessOrEqual"] = [](GraphImporter &g, const Node &n) {
    return compare(g, n, fuse::CompareDirection::le, leFold);
  };
  map["GreaterOrEqual"] = [](GraphImporter &g, const Node &n) {
    return compare(g, n, fuse::CompareDirection::ge, geFold);
  };
  map["Where"] = where;
  map["Cast"] = castOp;
  map["Identity"] = identity;
  map["Clip"] = clip;
  for (const char *op : {"Not", "And", "Or", "Xor"})
    map[op] = logical;
  map["Dropout"] = identity;
}

} // namespace opfuse::onnx_import
