//===- ComputeConverters.cpp - ONNX matmuls, norms and reductions ---------===//
//
// MatMul (NumPy's: vectors promoted and dropped again, batches broadcast),
// Gemm (transposes, alpha, beta and the bias), Softmax and LogSoftmax,
// LayerNormalization and SimplifiedLayerNormalization (RMS), and the
// reductions, whose axes moved from an attribute to an input over the
// opsets.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

bool isFloatTensor(RankedTensorType type) {
  return type && isa<FloatType>(type.getElementType());
}

Value reshape(GraphImporter &g, Location loc, Value x,
              ArrayRef<int64_t> shape) {
  auto in = cast<RankedTensorType>(x.getType());
  auto type = RankedTensorType::get(shape, in.getElementType());
  if (type == in)
    return x;
  return fuse::ReshapeOp::create(g.builder, loc, type, x);
}

LogicalResult matmul(GraphImporter &g, const Node &node) {
  RankedTensorType a = g.typeOf(node, 0), b = g.typeOf(node, 1);
  if (!isFloatTensor(a) || !isFloatTensor(b) ||
      a.getElementType() != b.getElementType() || a.getRank() == 0 ||
      b.getRank() == 0) {
    g.error(node) << "multiplies " << a << " by " << b
                  << ": expected float tensors of one type, of rank 1 or more";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0), y = g.operand(node, 1);
  if (failed(x) || failed(y))
    return failure();
  // Vectors become matrices, and their unit dimension goes again after.
  SmallVector<int64_t> aShape(a.getShape()), bShape(b.getShape());
  const bool vectorA = a.getRank() == 1, vectorB = b.getRank() == 1;
  if (vectorA)
    aShape.insert(aShape.begin(), 1);
  if (vectorB)
    bShape.push_back(1);
  const int64_t m = aShape[aShape.size() - 2], k = aShape.back();
  const int64_t k2 = bShape[bShape.size() - 2], n = bShape.back();
  if (k != k2) {
    g.error(node) << "contracts " << a << " with " << b << ": inner dimensions "
                  << k << " and " << k2 << " differ";
    return failure();
  }
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(ArrayRef<int64_t>(aShape).drop_back(2),
                      ArrayRef<int64_t>(bShape).drop_back(2));
  if (!batch) {
    g.error(node) << "batch dimensions of " << a << " and " << b
                  << " do not broadcast";
    return failure();
  }
  Value lhs = reshape(g, node.loc, *x, aShape);
  Value rhs = reshape(g, node.loc, *y, bShape);
  SmallVector<int64_t> shape(*batch);
  shape.push_back(m);
  shape.push_back(n);
  Value product = fuse::MatmulOp::create(
      g.builder, node.loc, RankedTensorType::get(shape, a.getElementType()),
      lhs, rhs, /*transpose_a=*/false, /*transpose_b=*/false);
  SmallVector<int64_t> result(*batch);
  if (!vectorA)
    result.push_back(m);
  if (!vectorB)
    result.push_back(n);
  g.define(node, 0, reshape(g, node.loc, product, result));
  return success();
}

LogicalResult gemm(GraphImporter &g, const Node &node) {
  RankedTensorType a = g.typeOf(node, 0), b = g.typeOf(node, 1);
  if (!isFloatTensor(a) || !isFloatTensor(b) || a.getRank() != 2 ||
      b.getRank() != 2 || a.getElementType() != b.getElementType()) {
    g.error(node) << "takes " << a << " and " << b
                  << ": expected float matrices of one type";
    return failure();
  }
  const bool transA = g.intAttr(node, "transA", 0) != 0;
  const bool transB = g.intAttr(node, "transB", 0) != 0;
  const float alpha = g.floatAttr(node, "alpha", 1.0f);
  const float beta = g.floatAttr(node, "beta", 1.0f);
  const int64_t m = a.getDimSize(transA ? 1 : 0),
                k = a.getDimSize(transA ? 0 : 1);
  const int64_t k2 = b.getDimSize(transB ? 1 : 0),
                n = b.getDimSize(transB ? 0 : 1);
  if (k != k2) {
    g.error(node) << "contracts " << a << " with " << b << ": inner dimensions "
                  << k << " and " << k2 << " differ";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0), y = g.operand(node, 1);
  if (failed(x) || failed(y))
    return failure();
  Type element = a.getElementType();
  auto type = RankedTensorType::get({m, n}, element);
  Value result =
      fuse::MatmulOp::create(g.builder, node.loc, type, *x, *y, transA, transB);
  if (alpha != 1.0f)
    result = fuse::MulOp::create(g.builder, node.loc, type, result,
                                 g.scalar(element, alpha, node.loc));
  if (node.has(2) && beta != 0.0f) {
    RankedTensorType c = g.typeOf(node, 2);
    if (c.getElementType() != element ||
        !broadcastShapes(type.getShape(), c.getShape()) ||
        *broadcastShapes(type.getShape(), c.getShape()) !=
            SmallVector<int64_t>(type.getShape())) {
      g.error(node) << "bias " << c << " does not broadcast to " << type;
      return failure();
    }
    FailureOr<Value> bias = g.operand(node, 2);
    if (failed(bias))
      return failure();
    Value term = *bias;
    if (beta != 1.0f)
      term = fuse::MulOp::create(g.builder, node.loc, c, term,
                                 g.scalar(element, beta, node.loc));
    result = fuse::AddOp::create(g.builder, node.loc, type, result, term);
  }
  g.define(node, 0, result);
  return success();
}

/// The axis attribute of a softmax or norm, normalised against `type`.
std::optional<int64_t> axisOf(GraphImporter &g, const Node &node,
                              RankedTensorType type, int64_t otherwise) {
  std::optional<int64_t> axis =
      normalizeAxis(g.intAttr(node, "axis", otherwise), type.getRank());
  if (!axis)
    g.error(node) << "axis " << g.intAttr(node, "axis", otherwise)
                  << " is outside the rank of " << type;
  return axis;
}

LogicalResult softmax(GraphImporter &g, const Node &node, bool logarithm) {
  RankedTensorType in = g.typeOf(node, 0);
  if (!isFloatTensor(in)) {
    g.error(node) << "needs a float input, not " << in;
    return failure();
  }
  std::optional<int64_t> axis = axisOf(g, node, in, -1);
  if (!axis)
    return failure();
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  if (!logarithm) {
    g.define(node, 0,
             fuse::SoftmaxOp::create(g.builder, node.loc, in, *x, *axis));
    return success();
  }
  // log softmax = (x - max) - log(sum(exp(x - max))): no exp overflows and
  // no log of a rounded quotient.
  SmallVector<int64_t> kept(in.getShape());
  kept[*axis] = 1;
  auto keptType = RankedTensorType::get(kept, in.getElementType());
  auto axes = g.builder.getDenseI64ArrayAttr({*axis});
  Value max = fuse::ReduceMaxOp::create(g.builder, node.loc, keptType, *x, axes,
                                        /*keepdims=*/true);
  Value shifted = fuse::SubOp::create(g.builder, node.loc, in, *x, max);
  Value exp = fuse::ExpOp::create(g.builder, node.loc, in, shifted);
  Value sum = fuse::ReduceSumOp::create(g.builder, node.loc, keptType, exp,
                                        axes, /*keepdims=*/true);
  Value log = fuse::LogOp::create(g.builder, node.loc, keptType, sum);
  g.define(node, 0, fuse::SubOp::create(g.builder, node.loc, in, shifted, log));
  return success();
}

/// The extra outputs of the norms (mean, inverse deviation) are training
/// only; a model that reads them is not supported.
LogicalResult onlyFirstOutput(GraphImporter &g, const Node &node) {
  for (int i = 1; i < node.proto.output_size(); ++i)
    if (!node.proto.output(i).empty()) {
      g.unsupported(node) << "output #" << i
                          << " (a training statistic) is not supported";
      return failure();
    }
  return success();
}

LogicalResult layerNorm(GraphImporter &g, const Node &node, bool rms) {
  RankedTensorType in = g.typeOf(node, 0);
  if (!isFloatTensor(in) || failed(onlyFirstOutput(g, node))) {
    if (!isFloatTensor(in))
      g.error(node) << "needs a float input, not " << in;
    return failure();
  }
  std::optional<int64_t> axis = axisOf(g, node, in, -1);
  if (!axis)
    return failure();
  ArrayRef<int64_t> normalised = in.getShape().drop_front(*axis);
  auto paramType = RankedTensorType::get(normalised, in.getElementType());
  SmallVector<Value> params;
  for (int i = 1; i <= (rms ? 1 : 2); ++i) {
    if (!node.has(i)) {
      params.push_back(nullptr);
      continue;
    }
    RankedTensorType t = g.typeOf(node, i);
    FailureOr<Value> v = g.operand(node, i);
    if (failed(v))
      return failure();
    if (t != paramType) {
      // ONNX broadcasts them; fuse wants them in the normalised shape.
      if (t.getElementType() != in.getElementType() ||
          !broadcastShapes(normalised, t.getShape()) ||
          *broadcastShapes(normalised, t.getShape()) !=
              SmallVector<int64_t>(normalised)) {
        g.error(node) << (i == 1 ? "scale " : "bias ") << t
                      << " does not broadcast to " << paramType;
        return failure();
      }
      *v = fuse::BroadcastToOp::create(g.builder, node.loc, paramType, *v);
    }
    params.push_back(*v);
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  const float epsilon = g.floatAttr(node, "epsilon", rms ? 1e-6f : 1e-5f);
  if (rms)
    g.define(node, 0,
             fuse::RmsNormOp::create(g.builder, node.loc, in, *x, params[0],
                                     g.builder.getI64IntegerAttr(*axis),
                                     g.builder.getF32FloatAttr(epsilon)));
  else
    g.define(node, 0,
             fuse::LayerNormOp::create(g.builder, node.loc, in, *x, params[0],
                                       params[1],
                                       g.builder.getI64IntegerAttr(*axis),
                                       g.builder.getF32FloatAttr(epsilon)));
  return success();
}

/// What a Reduce* node reduces: its axes (sorted, non-negative), whether
/// it keeps them, and the result's shape; `none` where the axes are empty
/// and noop_with_empty_axes makes the node an identity.
struct Reduction {
  SmallVector<int64_t> axes;
  bool keepdims = true;
  bool none = false;
  SmallVector<int64_t> shape;
  /// The result's shape with the reduced axes kept as 1.
  SmallVector<int64_t> keptShape;
};

FailureOr<Reduction> reductionOf(GraphImporter &g, const Node &node,
                                 RankedTensorType in, int64_t axesInputFrom) {
  Reduction r;
  if (node.opset >= axesInputFrom) {
    if (node.has(1)) {
      FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 1, "axes");
      if (failed(given))
        return failure();
      r.axes = *given;
    }
  } else if (std::optional<SmallVector<int64_t>> given =
                 g.intsAttr(node, "axes")) {
    r.axes = *given;
  }
  if (r.axes.empty()) {
    if (g.intAttr(node, "noop_with_empty_axes", 0) != 0) {
      r.none = true;
      return r;
    }
    for (int64_t d = 0; d < in.getRank(); ++d)
      r.axes.push_back(d);
  }
  SmallVector<bool> reduced(in.getRank(), false);
  for (int64_t &a : r.axes) {
    std::optional<int64_t> axis = normalizeAxis(a, in.getRank());
    if (!axis || reduced[*axis]) {
      g.error(node) << "axis " << a << " is invalid for " << in;
      return failure();
    }
    a = *axis;
    reduced[a] = true;
  }
  llvm::sort(r.axes);
  r.keepdims = g.intAttr(node, "keepdims", 1) != 0;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    r.keptShape.push_back(reduced[d] ? 1 : in.getDimSize(d));
    if (!reduced[d] || r.keepdims)
      r.shape.push_back(r.keptShape.back());
  }
  return r;
}

template <typename OpTy>
Value reduceOp(GraphImporter &g, const Node &node, Value x, const Reduction &r,
               bool keepdims) {
  Type element = cast<RankedTensorType>(x.getType()).getElementType();
  return OpTy::create(
      g.builder, node.loc,
      RankedTensorType::get(keepdims ? r.keptShape : r.shape, element), x,
      g.builder.getDenseI64ArrayAttr(r.axes), keepdims);
}

template <typename OpTy>
LogicalResult reduce(GraphImporter &g, const Node &node,
                     int64_t axesInputFrom) {
  RankedTensorType in = g.typeOf(node, 0);
  FailureOr<Reduction> r = reductionOf(g, node, in, axesInputFrom);
  if (failed(r))
    return failure();
  if (std::is_same_v<OpTy, fuse::ReduceMeanOp> && !isFloatTensor(in)) {
    g.unsupported(node) << "the mean of " << in.getElementType()
                        << " values is not supported";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  g.define(node, 0,
           r->none ? *x : reduceOp<OpTy>(g, node, *x, *r, r->keepdims));
  return success();
}

/// The reductions ONNX has and fuse builds from a sum or a maximum:
/// ReduceMin (-max(-x)), ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum
/// and ReduceLogSumExp (max + log(sum(exp(x - max))), which does not
/// overflow). Floats only: -x of an integer's minimum wraps.
LogicalResult composedReduction(GraphImporter &g, const Node &node) {
  const std::string &op = node.proto.op_type();
  RankedTensorType in = g.typeOf(node, 0);
  if (!isFloatTensor(in)) {
    g.unsupported(node) << op << " of " << (in ? in.getElementType() : Type())
                        << " values is not supported (floats only)";
    return failure();
  }
  FailureOr<Reduction> r = reductionOf(g, node, in, 18);
  FailureOr<Value> xv = g.operand(node, 0);
  if (failed(r) || failed(xv))
    return failure();
  Value x = *xv;
  Location loc = node.loc;
  OpBuilder &b = g.builder;
  auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  auto square = [&](Value v) {
    return fuse::MulOp::create(b, loc, typeOf(v), v, v).getResult();
  };
  auto sum = [&](Value v) {
    return reduceOp<fuse::ReduceSumOp>(g, node, v, *r, r->keepdims);
  };
  if (r->none) {
    // The specification: "the output tensor would be equivalent to input
    // tensor" (not the op applied to each element).
    g.define(node, 0, x);
    return success();
  }
  Value y;
  if (op == "ReduceMin") {
    Value negated = fuse::NegOp::create(b, loc, in, x);
    Value max = reduceOp<fuse::ReduceMaxOp>(g, node, negated, *r, r->keepdims);
    y = fuse::NegOp::create(b, loc, typeOf(max), max);
  } else if (op == "ReduceSumSquare") {
    y = sum(square(x));
  } else if (op == "ReduceL1") {
    y = sum(fuse::AbsOp::create(b, loc, in, x));
  } else if (op == "ReduceL2") {
    Value s = sum(square(x));
    y = fuse::SqrtOp::create(b, loc, typeOf(s), s);
  } else if (op == "ReduceLogSum") {
    Value s = sum(x);
    y = fuse::LogOp::create(b, loc, typeOf(s), s);
  } else {
    Value max = reduceOp<fuse::ReduceMaxOp>(g, node, x, *r, /*keepdims=*/true);
    Value shifted = fuse::SubOp::create(b, loc, in, x, max);
    Value s = sum(fuse::ExpOp::create(b, loc, in, shifted));
    Value log = fuse::LogOp::create(b, loc, typeOf(s), s);
    if (!r->keepdims)
      max = fuse::ReshapeOp::create(b, loc, typeOf(s), max);
    y = fuse::AddOp::create(b, loc, typeOf(s), log, max);
  }
  g.define(node, 0, y);
  return success();
}

} // namespace

void registerComputeConverters(llvm::StringMap<Converter> &map) {
  map["MatMul"] = matmul;
  map["Gemm"] = gemm;
  map["Softmax"] = [](GraphImporter &g, const Node &n) {
    return softmax(g, n, /*logarithm=*/false);
  };
  map["LogSoftmax"] = [](GraphImporter &g, const Node &n) {
    return softmax(g, n, /*logarithm=*/true);
  };
  map["LayerNormalization"] = [](GraphImporter &g, const Node &n) {
    return layerNorm(g, n, /*rms=*/false);
  };
  map["SimplifiedLayerNormalization"] = [](GraphImporter &g, const Node &n) {
    return layerNorm(g, n, /*rms=*/true);
  };
  // ReduceSum took its axes as an input from opset 13, the others from 18.
  map["ReduceSum"] = [](GraphImporter &g, const Node &n) {
    return reduce<fuse::ReduceSumOp>(g, n, 13);
  };
  map["ReduceMean"] = [](GraphImporter &g, const Node &n) {
    return reduce<fuse::ReduceMeanOp>(g, n, 18);
  };
  map["ReduceMax"] = [](GraphImporter &g, const Node &n) {
    return reduce<fuse::ReduceMaxOp>(g, n, 18);
  };
  for (const char *op : {"ReduceMin", "ReduceSumSquare", "ReduceL1", "ReduceL2",
                         "ReduceLogSum", "ReduceLogSumExp"})
    map[op] = composedReduction;
}

} // namespace opfuse::onnx_import
