//===- FuseDecompose.cpp - Composite ops as their primitives --------------===//
//
// softmax, layer_norm and rms_norm become reductions and elementwise ops, so
// that fusion can put each into one kernel together with its producers and
// consumers. Narrow floats are widened to f32 first: every reduction
// accumulates in f32 and only the result is rounded back.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

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

private:
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
  void runOnOperation() override {
    SmallVector<Operation *> composites;
    getOperation().walk([&](Operation *op) {
      if (isComposite(op))
        composites.push_back(op);
    });
    for (Operation *op : composites) {
      OpBuilder b(op);
      Decomposer decomposer(b, op->getLoc());
      Value replacement =
          llvm::TypeSwitch<Operation *, Value>(op)
              .Case([&](SoftmaxOp s) { return decomposer.softmax(s); })
              .Case([&](LayerNormOp l) { return decomposer.layerNorm(l); })
              .Case([&](RmsNormOp r) { return decomposer.rmsNorm(r); });
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  }
};

} // namespace
