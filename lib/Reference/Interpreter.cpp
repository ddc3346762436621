//===- Interpreter.cpp - CPU reference for fuse functions -----------------===//
//
// Straightforward loops over row-major data: the point is to be obviously
// right, not fast. Each op's result is rounded to its element type, or,
// inside a group at kernel precision, f16/bf16 results to f32.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Reference/Interpreter.h"

#include "Contractions.h"
#include "RankInterpreter.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Runtime/HalfFloat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::reference {

double roundTo(Type type, double v) {
  if (type.isF32())
    return static_cast<float>(v);
  if (type.isBF16())
    return decodeBF16(encodeBF16(static_cast<float>(v)));
  if (type.isF16())
    return decodeF16(encodeF16(static_cast<float>(v)));
  if (type.isInteger(1))
    return v != 0 ? 1 : 0;
  if (std::isnan(v))
    return 0;
  // Integer results are exact below 2^53 and wrap to their width; beyond
  // 2^63 a double cannot say which i64 it meant (and converting it would
  // be undefined), so it stays at the end of the range: 2^63 reads back
  // as INT64_MAX, as the GPU's saturated conversions store it.
  const double limit = std::ldexp(1.0, 63);
  if (v >= limit || v < -limit)
    return type.isInteger(64) ? std::copysign(limit, v) : 0.0;
  const int64_t whole = static_cast<int64_t>(std::trunc(v));
  if (type.isInteger(32))
    return static_cast<int32_t>(static_cast<uint32_t>(whole));
  return static_cast<double>(whole);
}

DenseMap<Value, Operation *> lastUses(Block &block) {
  DenseMap<Value, Operation *> lastUse;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      lastUse[operand] = &op;
  return lastUse;
}

namespace {

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Runs `body` over [0, n) in chunks, on every core when n is large. Each
/// element is computed on its own, so the result does not depend on how
/// the chunks are spread.
void forChunks(int64_t n, llvm::function_ref<void(int64_t, int64_t)> body) {
  constexpr int64_t kChunk = 1 << 15;
  if (n <= kChunk) {
    body(0, n);
    return;
  }
  llvm::parallelFor(0, (n + kChunk - 1) / kChunk, [&](size_t chunk) {
    const int64_t begin = chunk * kChunk;
    body(begin, std::min(n, begin + kChunk));
  });
}

/// Linear index into `shape` (broadcast into `out`) of output index `i`.
struct Broadcaster {
  SmallVector<int64_t> outShape, strides;
  bool identity = false, scalar = false;
  Broadcaster(ArrayRef<int64_t> out, ArrayRef<int64_t> in) : outShape(out) {
    identity = product(out) == product(in);
    scalar = product(in) == 1;
    strides.assign(out.size(), 0);
    SmallVector<int64_t> inStrides = stridesOf(in);
    int64_t offset = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d)
      if (in[d] != 1)
        strides[offset + d] = inStrides[d];
  }
  int64_t map(int64_t i) const {
    if (identity)
      return i;
    if (scalar)
      return 0;
    int64_t index = 0;
    for (int64_t d = outShape.size() - 1; d >= 0; --d) {
      index += (i % outShape[d]) * strides[d];
      i /= outShape[d];
    }
    return index;
  }
};

class Interpreter : public RankInterpreter {
public:
  explicit Interpreter(const Options &options, bool insideGroup = false)
      : options(options), insideGroup(insideGroup) {}

  FailureOr<SmallVector<Tensor>> run(Block &block, ArrayRef<Tensor> args) {
    bind(block, args);
    DenseMap<Value, Operation *> lastUse = lastUses(block);
    const int64_t total = block.getOperations().size() - 1;
    int64_t done = 0;
    for (Operation &op : block) {
      if (isa<func::ReturnOp, YieldOp>(op)) {
        SmallVector<Tensor> results;
        for (Value v : op.getOperands())
          results.push_back(values.lookup(v));
        return results;
      }
      if (failed(eval(op)))
        return failure();
      for (Value operand : op.getOperands())
        if (lastUse.lookup(operand) == &op)
          values.erase(operand);
      if (options.progress && !insideGroup)
        options.progress(++done, total);
    }
    return SmallVector<Tensor>{};
  }

  void bind(Block &block, ArrayRef<Tensor> args) override {
    for (auto [arg, value] : llvm::zip(block.getArguments(), args))
      values[arg] = value;
  }
  LogicalResult evalOp(Operation &op) override { return eval(op); }
  const Tensor &valueOf(Value v) override { return get(v); }
  void setValue(Value result, Tensor t) override { set(result, std::move(t)); }
  void drop(Value v) override { values.erase(v); }

private:
  void attention(AttentionOp a) {
    const Tensor &q = get(a.getQ()), &k = get(a.getK()), &v = get(a.getV());
    Tensor out = make(a.getResult());
    AttentionOperands operands;
    operands.q = q.data.data();
    operands.k = k.data.data();
    operands.v = v.data.data();
    operands.out = out.data.data();
    operands.batch = q.shape[0];
    operands.heads = q.shape[1];
    operands.sq = q.shape[2];
    operands.d = q.shape[3];
    operands.kvHeads = k.shape[1];
    operands.sk = k.shape[2];
    operands.dv = v.shape[3];
    operands.scale = a.getScale().convertToDouble();
    operands.causal = a.getCausal();
    if (FloatAttr softcap = a.getSoftcapAttr())
      operands.softcap = softcap.getValueAsDouble();
    if (Value m = a.getMask()) {
      // The mask's strides over the scores, aligned right, 0 where it
      // broadcasts.
      const Tensor &mask = get(m);
      operands.mask = mask.data.data();
      SmallVector<int64_t> strides = stridesOf(mask.shape);
      const int64_t offset = 4 - mask.shape.size();
      for (size_t d = 0; d < mask.shape.size(); ++d)
        if (mask.shape[d] != 1)
          operands.maskStrides[offset + d] = strides[d];
    }
    reference::attention(operands, options.f64Accumulation);
    set(a.getResult(), std::move(out));
  }

  double accumulate(double v) const {
    return options.f64Accumulation ? v : static_cast<float>(v);
  }

  Tensor make(Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    Tensor t;
    t.elementType = type.getElementType();
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    t.data.assign(product(type.getShape()), 0.0);
    return t;
  }

  void set(Value result, Tensor t) {
    Type precision = t.elementType;
    // A fused kernel computes in f32 and narrows only what it stores, or
    // where a cast from another type says so.
    auto cast = dyn_cast_or_null<CastOp>(result.getDefiningOp());
    const bool narrows =
        cast && cast.getInput().getType().getElementType() != precision;
    if (insideGroup && options.kernelPrecision &&
        isa<BFloat16Type, Float16Type>(precision) && !narrows)
      precision = Float32Type::get(precision.getContext());
    double *data = t.data.data();
    forChunks(t.size(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        data[i] = roundTo(precision, data[i]);
    });
    values[result] = std::move(t);
  }

  const Tensor &get(Value v) { return values[v]; }

  /// Elementwise with NumPy broadcasting of every operand.
  void elementwise(Operation &op,
                   llvm::function_ref<double(ArrayRef<double>)> fn) {
    Tensor out = make(op.getResult(0));
    SmallVector<Broadcaster> maps;
    SmallVector<const double *> inputs;
    for (Value operand : op.getOperands()) {
      const Tensor &input = get(operand);
      maps.emplace_back(out.shape, input.shape);
      inputs.push_back(input.data.data());
    }
    double *result = out.data.data();
    forChunks(out.size(), [&](int64_t begin, int64_t end) {
      SmallVector<double, 4> args(inputs.size());
      for (int64_t i = begin; i < end; ++i) {
        for (auto [k, input] : llvm::enumerate(inputs))
          args[k] = input[maps[k].map(i)];
        result[i] = fn(args);
      }
    });
    set(op.getResult(0), std::move(out));
  }

  LogicalResult constant(ConstantOp op) {
    Tensor out = make(op.getResult());
    Type type = out.elementType;
    if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue())) {
      int64_t i = 0;
      if (isa<FloatType>(type))
        for (APFloat v : dense.getValues<APFloat>())
          out.data[i++] = v.convertToDouble();
      else
        for (APInt v : dense.getValues<APInt>())
          out.data[i++] = type.isInteger(1) ? double(v.getZExtValue())
                                            : double(v.getSExtValue());
      set(op.getResult(), std::move(out));
      return success();
    }
    auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue());
    AsmResourceBlob *blob =
        resource ? resource.getRawHandle().getBlob() : nullptr;
    if (!blob)
      return op.emitError("the reference interpreter has no data for this "
                          "constant");
    ArrayRef<char> bytes = blob->getData();
    const int64_t width = getElementByteSize(type);
    if (static_cast<int64_t>(bytes.size()) < out.size() * width)
      return op.emitError("resource holds ")
             << bytes.size() << " bytes but the tensor needs "
             << out.size() * width;
    for (int64_t i = 0; i < out.size(); ++i) {
      const char *p = bytes.data() + i * width;
      if (type.isF32()) {
        float v;
        std::memcpy(&v, p, 4);
        out.data[i] = v;
      } else if (type.isBF16() || type.isF16()) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        out.data[i] = type.isBF16() ? decodeBF16(v) : decodeF16(v);
      } else if (type.isInteger(32)) {
        int32_t v;
        std::memcpy(&v, p, 4);
        out.data[i] = v;
      } else if (type.isInteger(64)) {
        int64_t v;
        std::memcpy(&v, p, 8);
        out.data[i] = double(v);
      } else {
        out.data[i] = *p ? 1 : 0;
      }
    }
    set(op.getResult(), std::move(out));
    return success();
  }

  /// Sum, max or mean over `axes`.
  void reduce(Operation &op, ArrayRef<int64_t> axes, int kind) {
    const Tensor &in = get(op.getOperand(0));
    Tensor out = make(op.getResult(0));
    // The output as the input's shape with reduced dimensions set to 1: the
    // same row-major order with or without keepdims.
    SmallVector<int64_t> kept(in.shape);
    for (int64_t a : axes)
      kept[a] = 1;
    SmallVector<int64_t> keptStrides = stridesOf(kept);
    std::vector<double> acc(
        out.size(), kind == 1 ? -std::numeric_limits<double>::infinity() : 0.0);
    for (int64_t i = 0; i < in.size(); ++i) {
      int64_t o = 0, rest = i;
      for (int64_t d = in.shape.size() - 1; d >= 0; --d) {
        if (kept[d] != 1)
          o += (rest % in.shape[d]) * keptStrides[d];
        rest /= in.shape[d];
      }
      double v = in.data[i];
      if (kind == 1)
        acc[o] = (std::isnan(v) || v > acc[o]) ? v : acc[o];
      else
        acc[o] = accumulate(acc[o] + v);
    }
    const int64_t count = in.size() / std::max<int64_t>(out.size(), 1);
    for (int64_t o = 0; o < out.size(); ++o)
      out.data[o] = kind == 2 ? acc[o] / count : acc[o];
    set(op.getResult(0), std::move(out));
  }

  /// Rows of `cols` elements: a normalisation over [axis, rank).
  void normalize(Operation &op, Value inputValue, int64_t axis, Value scale,
                 Value bias, double epsilon, bool rms) {
    const Tensor &in = get(inputValue);
    Tensor out = make(op.getResult(0));
    const int64_t cols = product(ArrayRef<int64_t>(in.shape).drop_front(axis));
    const int64_t rows = in.size() / cols;
    for (int64_t r = 0; r < rows; ++r) {
      const double *x = in.data.data() + r * cols;
      double mean = 0, var = 0;
      if (!rms) {
        for (int64_t c = 0; c < cols; ++c)
          mean = accumulate(mean + x[c]);
        mean /= cols;
      }
      for (int64_t c = 0; c < cols; ++c)
        var = accumulate(var + (x[c] - mean) * (x[c] - mean));
      var /= cols;
      const double inv = 1.0 / std::sqrt(var + epsilon);
      for (int64_t c = 0; c < cols; ++c) {
        double y = (x[c] - mean) * inv;
        if (scale)
          y *= get(scale).data[c];
        if (bias)
          y += get(bias).data[c];
        out.data[r * cols + c] = y;
      }
    }
    set(op.getResult(0), std::move(out));
  }

  LogicalResult eval(Operation &op);
  std::optional<LogicalResult> evalUnary(Operation &op);
  std::optional<LogicalResult> evalBinary(Operation &op);
  std::optional<LogicalResult> evalReduction(Operation &op);
  std::optional<LogicalResult> evalDataMovement(Operation &op);
  std::optional<LogicalResult> evalComputeOrCollective(Operation &op);

  const Options &options;
  /// Evaluating the body of a fuse.group (one kernel).
  bool insideGroup;
  DenseMap<Value, Tensor> values;
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double gelu(double x, GeluApproximation kind) {
  if (kind == GeluApproximation::tanh)
    return 0.5 * x *
           (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1 + std::erf(x * 0.7071067811865476));
}

bool compare(CompareDirection d, double a, double b) {
  switch (d) {
  case CompareDirection::eq:
    return a == b;
  case CompareDirection::ne:
    return a != b;
  case CompareDirection::lt:
    return a < b;
  case CompareDirection::le:
    return a <= b;
  case CompareDirection::gt:
    return a > b;
  case CompareDirection::ge:
    return a >= b;
  }
  return false;
}

unsigned elementWidth(Value value) {
  return cast<RankedTensorType>(value.getType())
      .getElementType()
      .getIntOrFloatBitWidth();
}

/// An integer the interpreter holds as a double (exact within 2^53).
int64_t toInt64(double v) { return static_cast<int64_t>(v); }

/// The two's-complement value of the low `width` bits of `bits`.
double wrapToWidth(uint64_t bits, unsigned width) {
  if (width >= 64)
    return static_cast<double>(static_cast<int64_t>(bits));
  const uint64_t mask = (uint64_t(1) << width) - 1;
  const uint64_t sign = uint64_t(1) << (width - 1);
  const uint64_t low = bits & mask;
  return low & sign ? -static_cast<double>((~low & mask) + 1)
                    : static_cast<double>(low);
}

/// `v` truncated toward zero and clamped to a signed `width`-bit range;
/// NaN is 0.
double saturateToWidth(double v, unsigned width) {
  if (std::isnan(v))
    return 0;
  const double limit = std::ldexp(1.0, static_cast<int>(width) - 1);
  if (v >= limit)
    return limit - 1;
  if (v < -limit)
    return -limit;
  return std::trunc(v);
}

/// Constants and unary elementwise ops (casts included). Nothing when `op` is
/// not one of them.
std::optional<LogicalResult> Interpreter::evalUnary(Operation &op) {
  using Args = ArrayRef<double>;
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(&op)
      .Case([&](ConstantOp c) { return constant(c); })
      .Case([&](NegOp) {
        elementwise(op, [](Args a) { return -a[0]; });
        return success();
      })
      .Case([&](AbsOp) {
        elementwise(op, [](Args a) { return std::fabs(a[0]); });
        return success();
      })
      .Case([&](ExpOp) {
        elementwise(op, [](Args a) { return std::exp(a[0]); });
        return success();
      })
      .Case([&](LogOp) {
        elementwise(op, [](Args a) { return std::log(a[0]); });
        return success();
      })
      .Case([&](SqrtOp) {
        elementwise(op, [](Args a) { return std::sqrt(a[0]); });
        return success();
      })
      .Case([&](RsqrtOp) {
        elementwise(op, [](Args a) { return 1.0 / std::sqrt(a[0]); });
        return success();
      })
      .Case([&](TanhOp) {
        elementwise(op, [](Args a) { return std::tanh(a[0]); });
        return success();
      })
      .Case([&](SinOp) {
        elementwise(op, [](Args a) { return std::sin(a[0]); });
        return success();
      })
      .Case([&](CosOp) {
        elementwise(op, [](Args a) { return std::cos(a[0]); });
        return success();
      })
      .Case([&](SigmoidOp) {
        elementwise(op, [](Args a) { return sigmoid(a[0]); });
        return success();
      })
      .Case([&](SiluOp) {
        elementwise(op, [](Args a) { return a[0] * sigmoid(a[0]); });
        return success();
      })
      .Case([&](ErfOp) {
        elementwise(op, [](Args a) { return std::erf(a[0]); });
        return success();
      })
      .Case([&](ReciprocalOp) {
        elementwise(op, [](Args a) { return 1.0 / a[0]; });
        return success();
      })
      .Case([&](ReluOp) {
        elementwise(op, [](Args a) {
          return std::isnan(a[0]) ? a[0] : std::max(a[0], 0.0);
        });
        return success();
      })
      .Case([&](GeluOp g) {
        GeluApproximation kind = g.getApproximate();
        elementwise(op, [kind](Args a) { return gelu(a[0], kind); });
        return success();
      })
      .Case([&](CastOp cast) {
        Type from = cast.getInput().getType().getElementType();
        Type to = cast.getType().getElementType();
        if (isa<FloatType>(from) && isa<IntegerType>(to) && !to.isInteger(1)) {
          // Truncated toward zero, saturated at the type's range, NaN 0.
          const unsigned width = to.getIntOrFloatBitWidth();
          elementwise(op,
                      [width](Args a) { return saturateToWidth(a[0], width); });
          return success();
        }
        elementwise(op, [](Args a) { return a[0]; });
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Binary elementwise ops, compare and select. Nothing when `op` is not one of
/// them.
std::optional<LogicalResult> Interpreter::evalBinary(Operation &op) {
  using Args = ArrayRef<double>;
  bool isInt = false;
  if (op.getNumOperands() > 0)
    if (auto t = dyn_cast<RankedTensorType>(op.getOperand(0).getType()))
      isInt = isa<IntegerType>(t.getElementType());
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(&op)
      .Case([&](AddOp) {
        elementwise(op, [](Args a) { return a[0] + a[1]; });
        return success();
      })
      .Case([&](SubOp) {
        elementwise(op, [](Args a) { return a[0] - a[1]; });
        return success();
      })
      .Case([&](MulOp) {
        if (isInt) {
          // A product of two i32 needs 62 bits, more than a double holds:
          // multiply the integers and wrap to the result's width.
          const unsigned width = elementWidth(op.getResult(0));
          elementwise(op, [width](Args a) {
            uint64_t product = static_cast<uint64_t>(toInt64(a[0])) *
                               static_cast<uint64_t>(toInt64(a[1]));
            return wrapToWidth(product, width);
          });
          return success();
        }
        elementwise(op, [](Args a) { return a[0] * a[1]; });
        return success();
      })
      .Case([&](DivOp) {
        if (isInt) {
          // Truncated toward zero; x / 0 = -1; MIN / -1 wraps to MIN.
          const unsigned width = elementWidth(op.getResult(0));
          elementwise(op, [width](Args a) {
            const int64_t x = toInt64(a[0]), d = toInt64(a[1]);
            if (d == 0)
              return -1.0;
            if (d == -1)
              return wrapToWidth(0 - static_cast<uint64_t>(x), width);
            return static_cast<double>(x / d);
          });
          return success();
        }
        elementwise(op, [](Args a) { return a[0] / a[1]; });
        return success();
      })
      .Case([&](MaxOp) {
        elementwise(op, [](Args a) { return fmaxNaN(a[0], a[1]); });
        return success();
      })
      .Case([&](MinOp) {
        elementwise(op, [](Args a) { return fminNaN(a[0], a[1]); });
        return success();
      })
      .Case([&](PowOp) {
        elementwise(op, [](Args a) { return std::pow(a[0], a[1]); });
        return success();
      })
      .Case([&](CompareOp c) {
        CompareDirection d = c.getDirection();
        elementwise(op,
                    [d](Args a) { return compare(d, a[0], a[1]) ? 1.0 : 0.0; });
        return success();
      })
      .Case([&](SelectOp) {
        elementwise(op, [](Args a) { return a[0] != 0 ? a[1] : a[2]; });
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Reductions and the normalisations built on them. Nothing when `op` is not
/// one of them.
std::optional<LogicalResult> Interpreter::evalReduction(Operation &op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(&op)
      .Case([&](ReduceSumOp r) {
        reduce(op, r.getAxes(), 0);
        return success();
      })
      .Case([&](ReduceMaxOp r) {
        reduce(op, r.getAxes(), 1);
        return success();
      })
      .Case([&](ReduceMeanOp r) {
        reduce(op, r.getAxes(), 2);
        return success();
      })
      .Case([&](SoftmaxOp s) {
        const Tensor &in = get(s.getInput());
        Tensor out = make(s.getResult());
        const int64_t axis = s.getAxis();
        const int64_t n = in.shape[axis];
        const int64_t inner =
            product(ArrayRef<int64_t>(in.shape).drop_front(axis + 1));
        const int64_t outer = in.size() / (n * inner);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            auto at = [&](int64_t k) { return (o * n + k) * inner + i; };
            double m = -std::numeric_limits<double>::infinity(), sum = 0;
            for (int64_t k = 0; k < n; ++k)
              m = std::max(m, in.data[at(k)]);
            for (int64_t k = 0; k < n; ++k)
              sum = accumulate(sum + std::exp(in.data[at(k)] - m));
            for (int64_t k = 0; k < n; ++k)
              out.data[at(k)] = std::exp(in.data[at(k)] - m) / sum;
          }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](LayerNormOp l) {
        normalize(op, l.getInput(), l.getAxis(), l.getScale(), l.getBias(),
                  l.getEpsilon().convertToDouble(), /*rms=*/false);
        return success();
      })
      .Case([&](RmsNormOp r) {
        normalize(op, r.getInput(), r.getAxis(), r.getScale(), Value(),
                  r.getEpsilon().convertToDouble(), /*rms=*/true);
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Broadcasts, reshapes, transposes, slices, concat and gather. Nothing when
/// `op` is not one of them.
std::optional<LogicalResult> Interpreter::evalDataMovement(Operation &op) {
  using Args = ArrayRef<double>;
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(&op)
      .Case([&](BroadcastToOp) {
        elementwise(op, [](Args a) { return a[0]; });
        return success();
      })
      .Case([&](ReshapeOp r) {
        Tensor out = get(r.getInput());
        Tensor shaped = make(r.getResult());
        shaped.data = std::move(out.data);
        set(r.getResult(), std::move(shaped));
        return success();
      })
      .Case([&](TransposeOp t) {
        const Tensor &in = get(t.getInput());
        Tensor out = make(t.getResult());
        SmallVector<int64_t> inStrides = stridesOf(in.shape);
        ArrayRef<int64_t> perm = t.getPermutation();
        for (int64_t i = 0; i < out.size(); ++i) {
          int64_t rest = i, src = 0;
          for (int64_t d = out.shape.size() - 1; d >= 0; --d) {
            src += (rest % out.shape[d]) * inStrides[perm[d]];
            rest /= out.shape[d];
          }
          out.data[i] = in.data[src];
        }
        set(t.getResult(), std::move(out));
        return success();
      })
      .Case([&](SliceOp s) {
        const Tensor &in = get(s.getInput());
        Tensor out = make(s.getResult());
        SmallVector<int64_t> inStrides = stridesOf(in.shape);
        for (int64_t i = 0; i < out.size(); ++i) {
          int64_t rest = i, src = 0;
          for (int64_t d = out.shape.size() - 1; d >= 0; --d) {
            src += (s.getOffsets()[d] +
                    (rest % out.shape[d]) * s.getStrides()[d]) *
                   inStrides[d];
            rest /= out.shape[d];
          }
          out.data[i] = in.data[src];
        }
        set(s.getResult(), std::move(out));
        return success();
      })
      .Case([&](ConcatOp c) {
        Tensor out = make(c.getResult());
        const int64_t axis = c.getAxis();
        const int64_t inner =
            product(ArrayRef<int64_t>(out.shape).drop_front(axis + 1));
        const int64_t outer =
            product(ArrayRef<int64_t>(out.shape).take_front(axis));
        int64_t base = 0;
        for (Value v : c.getInputs()) {
          const Tensor &in = get(v);
          const int64_t n = in.shape[axis];
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t k = 0; k < n * inner; ++k)
              out.data[(o * out.shape[axis] + base) * inner + k] =
                  in.data[o * n * inner + k];
          base += n;
        }
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case([&](GatherOp g) -> LogicalResult {
        const Tensor &data = get(g.getData());
        const Tensor &indices = get(g.getIndices());
        Tensor out = make(g.getResult());
        const int64_t axis = g.getAxis();
        const int64_t n = data.shape[axis];
        const int64_t inner =
            product(ArrayRef<int64_t>(data.shape).drop_front(axis + 1));
        const int64_t outer =
            product(ArrayRef<int64_t>(data.shape).take_front(axis));
        const int64_t count = indices.size();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < count; ++j) {
            int64_t index = static_cast<int64_t>(indices.data[j]);
            if (index < 0 || index >= n)
              return g.emitError("index ")
                     << index << " at position " << j
                     << " is out of range for a dimension of size " << n;
            for (int64_t k = 0; k < inner; ++k)
              out.data[(o * count + j) * inner + k] =
                  data.data[(o * n + index) * inner + k];
          }
        set(g.getResult(), std::move(out));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Contractions, collectives and nested groups. Nothing when `op` is not one of
/// them.
std::optional<LogicalResult>
Interpreter::evalComputeOrCollective(Operation &op) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(&op)
      .Case([&](AttentionOp a) {
        attention(a);
        return success();
      })
      .Case([&](MatmulOp m) {
        const Tensor &a = get(m.getLhs());
        const Tensor &b = get(m.getRhs());
        Tensor out = make(m.getResult());
        const int64_t r = out.shape.size();
        MatmulOperands operands;
        operands.a = a.data.data();
        operands.b = b.data.data();
        operands.out = out.data.data();
        operands.rows = out.shape[r - 2];
        operands.cols = out.shape[r - 1];
        operands.k = m.getContractionSize();
        operands.transposeA = m.getTransposeA();
        operands.transposeB = m.getTransposeB();
        const int64_t batches =
            out.size() / std::max<int64_t>(1, operands.rows * operands.cols);
        SmallVector<int64_t> batchShape(out.shape.begin(), out.shape.end() - 2);
        Broadcaster aBatch(batchShape, ArrayRef<int64_t>(a.shape).drop_back(2));
        Broadcaster bBatch(batchShape, ArrayRef<int64_t>(b.shape).drop_back(2));
        SmallVector<int64_t> aBatchOf, bBatchOf;
        for (int64_t batch = 0; batch < batches; ++batch) {
          aBatchOf.push_back(aBatch.map(batch));
          bBatchOf.push_back(bBatch.map(batch));
        }
        operands.aBatchOf = aBatchOf;
        operands.bBatchOf = bBatchOf;
        if (!options.f64Accumulation || !options.offload ||
            !options.offload->matmul(operands))
          matmul(operands, options.f64Accumulation);
        set(m.getResult(), std::move(out));
        return success();
      })
      .Case([&](Conv2DOp c) {
        const Tensor &x = get(c.getInput());
        const Tensor &w = get(c.getFilter());
        Tensor out = make(c.getResult());
        Conv2DOperands p;
        p.input = x.data.data();
        p.filter = w.data.data();
        p.out = out.data.data();
        p.n = x.shape[0];
        p.h = x.shape[1];
        p.w = x.shape[2];
        p.c = x.shape[3];
        p.f = w.shape[0];
        p.kh = w.shape[1];
        p.kw = w.shape[2];
        p.cg = w.shape[3];
        p.oh = out.shape[1];
        p.ow = out.shape[2];
        p.groups = c.getGroups();
        ArrayRef<int64_t> st = c.getStrides(), pad = c.getPadding(),
                          dil = c.getDilation();
        p.strideH = st[0];
        p.strideW = st[1];
        p.padTop = pad[0];
        p.padLeft = pad[2];
        p.dilationH = dil[0];
        p.dilationW = dil[1];
        p.inputDilationH = c.getInputDilation()[0];
        p.inputDilationW = c.getInputDilation()[1];
        conv2d(p, options.f64Accumulation);
        set(c.getResult(), std::move(out));
        return success();
      })
      .Case([&](AllReduceOp a) {
        set(a.getResult(), get(a.getInput()));
        return success();
      })
      .Case([&](AllGatherOp a) {
        const Tensor &in = get(a.getInput());
        Tensor out = make(a.getResult());
        const int64_t axis = a.getAxis();
        const int64_t n = in.shape[axis];
        const int64_t inner =
            product(ArrayRef<int64_t>(in.shape).drop_front(axis + 1));
        for (int64_t i = 0; i < out.size(); ++i) {
          int64_t o = i / (out.shape[axis] * inner);
          int64_t k = (i / inner) % out.shape[axis] % n;
          out.data[i] = in.data[(o * n + k) * inner + i % inner];
        }
        set(a.getResult(), std::move(out));
        return success();
      })
      .Case([&](ReduceScatterOp r) {
        const Tensor &in = get(r.getInput());
        Tensor out = make(r.getResult());
        const int64_t axis = r.getAxis();
        const int64_t n = in.shape[axis], m = out.shape[axis];
        const int64_t inner =
            product(ArrayRef<int64_t>(in.shape).drop_front(axis + 1));
        for (int64_t i = 0; i < out.size(); ++i) {
          int64_t o = i / (m * inner);
          int64_t k = (i / inner) % m;
          out.data[i] = in.data[(o * n + k) * inner + i % inner];
        }
        set(r.getResult(), std::move(out));
        return success();
      })
      .Case([&](GroupOp g) -> LogicalResult {
        SmallVector<Tensor> inputs;
        for (Value v : g.getInputs())
          inputs.push_back(get(v));
        Interpreter inner(options, /*insideGroup=*/true);
        FailureOr<SmallVector<Tensor>> results =
            inner.run(g.getBody().front(), inputs);
        if (failed(results))
          return failure();
        // What the kernel stores has the result's type.
        for (auto [result, tensor] : llvm::zip(g.getResults(), *results))
          set(result, std::move(tensor));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult Interpreter::eval(Operation &op) {
  for (auto family :
       {&Interpreter::evalUnary, &Interpreter::evalBinary,
        &Interpreter::evalReduction, &Interpreter::evalDataMovement,
        &Interpreter::evalComputeOrCollective})
    if (std::optional<LogicalResult> result = (this->*family)(op))
      return *result;
  return op.emitError("the reference interpreter cannot evaluate '")
         << op.getName() << "'";
}

} // namespace

std::unique_ptr<RankInterpreter>
RankInterpreter::create(const Options &options) {
  return std::make_unique<Interpreter>(options);
}

FailureOr<SmallVector<Tensor>> interpret(func::FuncOp func,
                                         ArrayRef<Tensor> arguments,
                                         const Options &options) {
  if (arguments.size() != func.getNumArguments())
    return func.emitError("the reference interpreter got ")
           << arguments.size() << " arguments for " << func.getNumArguments()
           << " parameters";
  Interpreter interpreter(options);
  return interpreter.run(func.getBody().front(), arguments);
}

} // namespace opfuse::reference
