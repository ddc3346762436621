//===- FuseDecompose.cpp - Composite ops as their primitives --------------===//
//
// softmax, layer_norm and rms_norm become reductions and elementwise ops, so
// that fusion can put each into one kernel together with its producers and
// consumers; attention becomes two matmuls around such a softmax. Narrow floats
// are widened to f32 first: every reduction accumulates in f32 and only the
// result is rounded back.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "GroupedConvWindows.h"

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEDECOMPOSE
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {

/// Builds the primitives of one composite at its location.
class Decomposer {
public:
  Decomposer(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// `value` in f32 (a cast when it is narrower).
  Value widen(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType().isF32())
      return value;
    return CastOp::create(b, loc, type.clone(b.getF32Type()), value);
  }

  /// `value` back in `elementType`.
  Value narrow(Value value, Type elementType) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == elementType)
      return value;
    return CastOp::create(b, loc, type.clone(elementType), value);
  }

  /// Reduction over `axes`, keeping them as size 1 so that the result
  /// broadcasts back over the reduced dimensions.
  template <typename ReduceOpTy>
  Value reduce(Value input, ArrayRef<int64_t> axes) {
    return ReduceOpTy::create(b, loc, input, b.getDenseI64ArrayAttr(axes),
                              b.getUnitAttr());
  }

  /// A splat f32 constant shaped like `like`.
  Value splat(Value like, double value) {
    auto type = cast<RankedTensorType>(like.getType());
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type,
                               b.getFloatAttr(type.getElementType(), value)));
  }

  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(b, loc, lhs, rhs);
  }

  /// max-subtracted softmax along `axis`.
  Value softmax(SoftmaxOp op) {
    Value x = widen(op.getInput());
    SmallVector<int64_t> axes = {static_cast<int64_t>(op.getAxis())};
    Value max = reduce<ReduceMaxOp>(x, axes);
    Value shifted = binary<SubOp>(x, max);
    Value exp = ExpOp::create(b, loc, shifted);
    Value sum = reduce<ReduceSumOp>(exp, axes);
    return narrow(binary<DivOp>(exp, sum), op.getType().getElementType());
  }

  /// (x - mean) * rsqrt(var + eps) * scale + bias, with the corrected
  /// two-pass variance: an f32 mean of a row around 1e4 is off by up to
  /// half its ulp (5e-4), as large as the spread's last digits. With
  /// d = x - mean (exact by Sterbenz, and small), var = mean(d^2) -
  /// mean(d)^2, where mean(d) is tiny so nothing cancels, and the centred
  /// value is d - mean(d). mean(d) and mean(d^2) do not depend on each
  /// other: the row emitter folds them in one pass.
  Value layerNorm(LayerNormOp op) {
    Value x = widen(op.getInput());
    SmallVector<int64_t> axes = trailingAxes(op.getType(), op.getAxis());
    Value shifted = binary<SubOp>(x, reduce<ReduceMeanOp>(x, axes));
    Value correction = reduce<ReduceMeanOp>(shifted, axes);
    Value meanSquare =
        reduce<ReduceMeanOp>(binary<MulOp>(shifted, shifted), axes);
    Value variance =
        binary<SubOp>(meanSquare, binary<MulOp>(correction, correction));
    Value centred = binary<SubOp>(shifted, correction);
    Value y = binary<MulOp>(centred, inverseRoot(variance, op.getEpsilon()));
    if (Value scale = op.getScale())
      y = binary<MulOp>(y, widen(scale));
    if (Value bias = op.getBias())
      y = binary<AddOp>(y, widen(bias));
    return narrow(y, op.getType().getElementType());
  }

  /// x * rsqrt(mean(x^2) + eps) * scale.
  Value rmsNorm(RmsNormOp op) {
    Value x = widen(op.getInput());
    SmallVector<int64_t> axes = trailingAxes(op.getType(), op.getAxis());
    Value meanSquare = reduce<ReduceMeanOp>(binary<MulOp>(x, x), axes);
    Value y = binary<MulOp>(x, inverseRoot(meanSquare, op.getEpsilon()));
    if (Value scale = op.getScale())
      y = binary<MulOp>(y, widen(scale));
    return narrow(y, op.getType().getElementType());
  }

  /// softmax(scale q kᵀ + mask) v: the scores and their softmax in f32,
  /// the probabilities in v's type for the second matmul. Grouped-query
  /// heads need no copy of k and v: q's [B, H, Sq, D] is read as
  /// [B, Hkv, (H / Hkv) Sq, D], the query heads of one key/value head
  /// stacked as rows.
  Value attention(AttentionOp op) {
    RankedTensorType q = op.getQ().getType(), k = op.getK().getType(),
                     v = op.getV().getType();
    const int64_t batch = q.getDimSize(0), heads = q.getDimSize(1),
                  sq = q.getDimSize(2), kvHeads = k.getDimSize(1),
                  sk = k.getDimSize(2);
    const int64_t group = heads / kvHeads;
    Type f32 = b.getF32Type();
    auto reshape = [&](Value value, ArrayRef<int64_t> shape) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getShape() == shape)
        return value;
      return ReshapeOp::create(b, loc, type.clone(shape), value);
    };
    Value queries = reshape(widen(op.getQ()),
                            {batch, kvHeads, group * sq, q.getDimSize(3)});
    Value scores = MatmulOp::create(b, loc, queries, widen(op.getK()),
                                    /*transpose_a=*/false,
                                    /*transpose_b=*/true);
    scores = reshape(scores, {batch, heads, sq, sk});
    scores =
        binary<MulOp>(scores, scalar(f32, op.getScale().convertToDouble()));
    if (FloatAttr cap = op.getSoftcapAttr())
      scores = binary<MulOp>(
          TanhOp::create(
              b, loc,
              binary<DivOp>(scores, scalar(f32, cap.getValueAsDouble()))),
          scalar(f32, cap.getValueAsDouble()));
    const bool canHideRows = op.getMask() || op.getCausal();
    if (Value mask = op.getMask())
      scores = binary<AddOp>(scores, widen(mask));
    const double minusInfinity = -std::numeric_limits<double>::infinity();
    if (op.getCausal()) {
      // Key j is visible to query i when j <= i: an [Sq, 1] and a [1, Sk]
      // index column compared, so nothing of size Sq x Sk is stored.
      auto indices = [&](ArrayRef<int64_t> shape, int64_t n) -> Value {
        SmallVector<int32_t> values(n);
        for (int64_t i = 0; i < n; ++i)
          values[i] = static_cast<int32_t>(i);
        auto type = RankedTensorType::get(shape, b.getI32Type());
        return ConstantOp::create(
            b, loc, DenseElementsAttr::get(type, ArrayRef<int32_t>(values)));
      };
      Value visible =
          CompareOp::create(b, loc, CompareDirection::le, indices({1, sk}, sk),
                            indices({sq, 1}, sq));
      scores =
          SelectOp::create(b, loc, visible, scores, scalar(f32, minusInfinity));
    }
    SmallVector<int64_t> last = {3};
    Value top = reduce<ReduceMaxOp>(scores, last);
    if (canHideRows) {
      // A row of hidden keys: exp(-inf - 0) = 0 everywhere, then 0 / 1.
      Value hidden = CompareOp::create(b, loc, CompareDirection::eq, top,
                                       scalar(f32, minusInfinity));
      top = SelectOp::create(b, loc, hidden, scalar(f32, 0.0), top);
    }
    Value exp = ExpOp::create(b, loc, binary<SubOp>(scores, top));
    Value sum = reduce<ReduceSumOp>(exp, last);
    if (canHideRows) {
      Value empty = CompareOp::create(b, loc, CompareDirection::eq, sum,
                                      scalar(f32, 0.0));
      sum = SelectOp::create(b, loc, empty, scalar(f32, 1.0), sum);
    }
    Value probabilities = narrow(binary<DivOp>(exp, sum), v.getElementType());
    probabilities = reshape(probabilities, {batch, kvHeads, group * sq, sk});
    Value out = MatmulOp::create(b, loc, probabilities, op.getV());
    return reshape(out, op.getType().getShape());
  }

private:
  /// A rank-0 constant, broadcast by the op that reads it.
  Value scalar(Type elementType, double value) {
    auto type = RankedTensorType::get({}, elementType);
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }

  static SmallVector<int64_t> trailingAxes(RankedTensorType type,
                                           int64_t axis) {
    SmallVector<int64_t> axes;
    for (int64_t d = axis; d < type.getRank(); ++d)
      axes.push_back(d);
    return axes;
  }

  /// rsqrt(value + epsilon)
  Value inverseRoot(Value value, APFloat epsilon) {
    return RsqrtOp::create(
        b, loc, binary<AddOp>(value, splat(value, epsilon.convertToDouble())));
  }

  OpBuilder &b;
  Location loc;
};

struct FuseDecomposePass
    : public opfuse::fuse::impl::FuseDecomposeBase<FuseDecomposePass> {
  using FuseDecomposeBase::FuseDecomposeBase;

  void runOnOperation() override {
    SmallVector<Operation *> composites;
    getOperation().walk([&](Operation *op) {
      if (!isDecomposedOp(op))
        return;
      if (auto conv = dyn_cast<Conv2DOp>(op)) {
        if (explain) {
          const std::string why =
              "at most " + std::to_string(kMaxWindowTerms) +
              " products an output, which one GEMM per group would compute "
              "in tiles mostly of padding; its taps' strided windows of the "
              "padded input make one loop kernel";
          op->emitRemark("grouped conv2d (groups = ")
              << conv.getGroups() << ") computed as windows: " << why;
          emitStructuredRemark(op, "fuse-decompose", ExplainKind::Passed,
                               "grouped-conv-windows", why);
        }
        composites.push_back(op);
        return;
      }
      if (auto attention = dyn_cast<AttentionOp>(op);
          attention && keepAttention) {
        std::optional<std::string> why = whyNoAttentionKernel(attention);
        if (!why)
          return;
        if (explain) {
          op->emitRemark("attention decomposed into two matmuls around a "
                         "softmax: ")
              << *why;
          emitStructuredRemark(op, "fuse-decompose", ExplainKind::Missed,
                               "attention-decomposed", *why);
        }
      }
      composites.push_back(op);
    });
    for (Operation *op : composites) {
      OpBuilder b(op);
      Decomposer decomposer(b, op->getLoc());
      Value replacement =
          llvm::TypeSwitch<Operation *, Value>(op)
              .Case([&](SoftmaxOp s) { return decomposer.softmax(s); })
              .Case([&](LayerNormOp l) { return decomposer.layerNorm(l); })
              .Case([&](RmsNormOp r) { return decomposer.rmsNorm(r); })
              .Case([&](AttentionOp a) { return decomposer.attention(a); })
              .Case([&](Conv2DOp c) { return buildConvWindows(b, c); });
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  }
};

} // namespace
