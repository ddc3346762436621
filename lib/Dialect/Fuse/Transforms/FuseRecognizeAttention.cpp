//===- FuseRecognizeAttention.cpp - Unfused attention as fuse.attention ---===//
//
// Frontends write attention as its parts: matmul(Q, Kᵀ), a scale, a soft
// cap (tanh(s / c) * c), an additive mask or a select that hides scores
// (masked_fill, ONNX Where), a softmax over the keys and matmul(P, V). Found
// whole, with every intermediate read only by the next part, the chain becomes
// one fuse.attention, which the fused attention kernel runs without
// writing the scores: a select becomes an additive mask of 0 and its
// fill, or the op's causal flag when its condition is the constant
// lower triangle. Only what that kernel runs is rewritten (others are
// left for the GEMM and row kernels); with fuse-explain every softmax that
// sits between two matmuls and is not rewritten gets a remark with the
// reason.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/IR/Builders.h"

#include <cstdio>

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSERECOGNIZEATTENTION
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {

/// fuse-recognize-attention's statistics (--mlir-pass-statistics).
constexpr opfuse::PassStatistic attentionsFormed{
    "attentions", "Chains rewritten into one fuse.attention"};
constexpr opfuse::PassStatistic chainsRefused{
    "refused", "Softmaxes between two matmuls left as they are"};

/// One attention written out: scores = matmul(q, kᵀ) [* scale | / scale]
/// [+ mask], p = softmax(scores) [cast], out = matmul(p, v).
struct AttentionChain {
  MatmulOp scores, output;
  SoftmaxOp softmax;
  Value q, k, v, mask;
  /// A select that hides scores: one branch is the scores, the other a
  /// splat fill of kMostHidingFill or less.
  SelectOp hide;
  /// Whether the select hides where its condition is true, and its fill.
  bool hiddenWhenTrue = false;
  double hideFill = 0;
  /// The select's condition is the constant causal triangle.
  bool causal = false;
  /// c of a soft cap c tanh(s / c) on the scaled scores (0: none).
  double softcap = 0;
  /// k as the scores matmul reads it: [.., D, Sk] (transposed in the
  /// model) or [.., Sk, D] (transpose_b).
  bool kRowsAreKeys = false;
  double scale = 1.0;
  /// The ops the chain replaces, output first (each reads the next).
  SmallVector<Operation *> parts;
};

/// The value of a splat fuse.constant defining `value`.
std::optional<double> splatValue(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// A select's fill hides a score when exp(fill - row maximum) is 0 in f32
/// for any row maximum above fill + 104: -1e4 or less (-10000, f16's
/// -65504, -1e9, -inf). Rows whose keys are all hidden differ between a
/// select (uniform over the fill) and an additive mask unless the fill
/// absorbs every score in f32 (-1e30 or less); a causal mask hides no row
/// whole.
constexpr double kMostHidingFill = -1e4;
constexpr double kAdditiveFill = -1e30;

/// Whether `condition` is a constant that keeps (where it equals `keep`)
/// exactly the keys up to each query's own position, j <= i: a causal
/// mask written out, as exported models carry it.
bool isCausalCondition(Value condition, bool keep) {
  auto constant = condition.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  auto type = cast<RankedTensorType>(condition.getType());
  if (!dense || type.getRank() < 2 ||
      llvm::any_of(type.getShape().drop_back(2),
                   [](int64_t d) { return d != 1; }))
    return false;
  const int64_t rows = type.getDimSize(type.getRank() - 2),
                cols = type.getDimSize(type.getRank() - 1);
  if (dense.isSplat())
    return false;
  auto values = dense.getValues<bool>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if ((values[i * cols + j] == keep) != (j <= i))
        return false;
  return true;
}

/// The splat constant one side of `mul` is, and the other side.
std::optional<std::pair<double, Value>> splatFactor(MulOp mul) {
  if (std::optional<double> c = splatValue(mul.getRhs()))
    return std::pair{*c, mul.getLhs()};
  if (std::optional<double> c = splatValue(mul.getLhs()))
    return std::pair{*c, mul.getRhs()};
  return std::nullopt;
}

/// Matches a chain backwards from the softmax's input, each step peeling
/// one optional part off `x` and recording what it read.
struct ChainMatcher {
  AttentionChain &chain;
  SmallVector<Value> &intermediates;
  Value x;

  void take(Operation *part, Value next) {
    intermediates.push_back(x);
    chain.parts.push_back(part);
    x = next;
  }

  /// [add mask] and [select hiding scores], in either order. A select
  /// whose other branch is a splat of kMostHidingFill or less hides the
  /// scores where it takes that branch.
  void peelMaskAndSelect() {
    auto fromScores = [](Value value) {
      Operation *def = value.getDefiningOp();
      return def && isa<MulOp, DivOp, MatmulOp, AddOp, SelectOp>(def);
    };
    auto fillOf = [](Value value) -> std::optional<double> {
      std::optional<double> fill = splatValue(value);
      if (fill && *fill <= kMostHidingFill)
        return fill;
      return std::nullopt;
    };
    for (int step = 0; step < 2; ++step) {
      if (auto add = x.getDefiningOp<AddOp>(); add && !chain.mask) {
        const bool lhsScores = fromScores(add.getLhs());
        chain.mask = lhsScores ? add.getRhs() : add.getLhs();
        take(add, lhsScores ? add.getLhs() : add.getRhs());
        continue;
      }
      auto select = x.getDefiningOp<SelectOp>();
      if (!select || chain.hide)
        return;
      std::optional<double> onTrue = fillOf(select.getOnTrue());
      std::optional<double> onFalse = fillOf(select.getOnFalse());
      if (!onTrue && !onFalse)
        return;
      chain.hide = select;
      chain.hiddenWhenTrue = onTrue.has_value();
      chain.hideFill = onTrue ? *onTrue : *onFalse;
      take(select, onTrue ? select.getOnFalse() : select.getOnTrue());
    }
  }

  /// [soft cap: tanh(x / c) * c].
  void peelSoftcap() {
    auto outer = x.getDefiningOp<MulOp>();
    std::optional<std::pair<double, Value>> factor =
        outer ? splatFactor(outer) : std::nullopt;
    auto tanh = factor ? factor->second.getDefiningOp<TanhOp>() : TanhOp();
    auto div = tanh ? tanh.getInput().getDefiningOp<DivOp>() : DivOp();
    std::optional<double> divisor =
        div ? splatValue(div.getRhs()) : std::nullopt;
    if (!divisor || factor->first <= 0 || *divisor != factor->first)
      return;
    chain.softcap = factor->first;
    take(outer, tanh);
    take(tanh, div);
    take(div, div.getLhs());
  }

  /// [mul or div by a splat constant].
  void peelScale() {
    if (auto mul = x.getDefiningOp<MulOp>()) {
      if (std::optional<std::pair<double, Value>> factor = splatFactor(mul)) {
        chain.scale = factor->first;
        take(mul, factor->second);
      }
    } else if (auto div = x.getDefiningOp<DivOp>()) {
      std::optional<double> c = splatValue(div.getRhs());
      if (c && *c != 0.0) {
        chain.scale = 1.0 / *c;
        take(div, div.getLhs());
      }
    }
  }
};

/// The matmul reading `value` as its A operand.
MatmulOp matmulReading(Value value) {
  for (Operation *user : value.getUsers())
    if (auto matmul = dyn_cast<MatmulOp>(user);
        matmul && matmul.getLhs() == value)
      return matmul;
  return nullptr;
}

/// Why the matched `chain` (its probabilities as the output matmul reads
/// them) is not one the attention kernel runs, or nothing when it is;
/// sets what follows from the shapes (q, k, v, causal).
std::optional<std::string> whyNotKernel(AttentionChain &chain,
                                        Value probabilities) {
  auto typeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType());
  };
  SoftmaxOp softmax = chain.softmax;
  const int64_t rank = typeOf(softmax.getResult()).getRank();
  if (static_cast<int64_t>(softmax.getAxis()) != rank - 1)
    return std::string("the softmax is not over the last axis (the keys)");
  if (chain.scores.getTransposeA() || chain.output.getTransposeA() ||
      chain.output.getTransposeB())
    return std::string("a matmul transposes P, Q or V");
  chain.q = chain.scores.getLhs();
  chain.k = chain.scores.getRhs();
  chain.kRowsAreKeys = chain.scores.getTransposeB();
  chain.v = chain.output.getRhs();
  ArrayRef<int64_t> scores = typeOf(chain.scores).getShape();
  for (Value operand : {chain.q, chain.k, chain.v})
    if (typeOf(operand).getRank() != rank ||
        typeOf(operand).getShape().drop_back(2) != scores.drop_back(2))
      return std::string("q, k and v do not share the scores' batch "
                         "dimensions (a broadcast in a matmul)");
  if (rank < 2 || rank > 4)
    return "the scores have rank " + std::to_string(rank) +
           "; attention takes 2 to 4";
  Type element = typeOf(chain.q).getElementType();
  for (Value value :
       SmallVector<Value>{chain.k, chain.v, chain.mask, probabilities,
                          chain.output.getResult(), softmax.getResult()})
    if (value && typeOf(value).getElementType() != element)
      return std::string("q, k, v, the mask, the probabilities and the "
                         "output are not all of one type");
  if (chain.mask && !broadcastsTo(typeOf(chain.mask).getShape(), scores))
    return std::string("the mask does not broadcast to the scores");
  if (chain.hide) {
    if (!broadcastsTo(typeOf(chain.hide.getCondition()).getShape(), scores))
      return std::string(
          "the select's condition does not broadcast to the scores");
    chain.causal = isCausalCondition(chain.hide.getCondition(),
                                     /*keep=*/!chain.hiddenWhenTrue);
    if (!chain.causal && chain.hideFill > kAdditiveFill) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", chain.hideFill);
      return std::string("the select hides scores with ") + text +
             ", which as an additive mask would change rows whose keys are "
             "all hidden; the kernel takes -1e30 or less (or a constant "
             "causal triangle)";
    }
  }
  // q is [.., Sq, D]; k [.., D, Sk] unless transpose_b.
  RankedTensorType k = typeOf(chain.k);
  if (!chain.kRowsAreKeys) {
    SmallVector<int64_t> shape(k.getShape());
    std::swap(shape[rank - 1], shape[rank - 2]);
    k = k.clone(shape);
  }
  return whyNoAttentionKernel(typeOf(chain.q), k, typeOf(chain.v));
}

/// The chain around `softmax`, or the reason it is not one the attention
/// kernel runs. `between` is set when the softmax sits between two matmuls
/// (the only case worth a remark).
FailureOr<AttentionChain> matchChain(SoftmaxOp softmax, bool &between,
                                     std::string &why) {
  AttentionChain chain;
  chain.softmax = softmax;
  between = false;
  // Forward: the probabilities, maybe cast, are the A operand of a matmul.
  Value probabilities = softmax.getResult();
  SmallVector<Value> intermediates = {probabilities};
  chain.output = matmulReading(probabilities);
  if (!chain.output)
    for (Operation *user : probabilities.getUsers())
      if (auto cast = dyn_cast<CastOp>(user))
        if (MatmulOp matmul = matmulReading(cast.getResult())) {
          chain.output = matmul;
          chain.parts.push_back(cast);
          probabilities = cast.getResult();
          intermediates.push_back(probabilities);
          break;
        }
  if (!chain.output)
    return failure();
  chain.parts.insert(chain.parts.begin(), chain.output);
  chain.parts.push_back(softmax);
  // Backward: [mask, select] <- [soft cap] <- [scale] <- matmul.
  ChainMatcher matcher{chain, intermediates, softmax.getInput()};
  matcher.peelMaskAndSelect();
  matcher.peelSoftcap();
  matcher.peelScale();
  intermediates.push_back(matcher.x);
  chain.scores = matcher.x.getDefiningOp<MatmulOp>();
  between = true;
  if (!chain.scores) {
    why = "the softmax's input is not matmul(q, kᵀ), scaled by a splat "
          "constant, plus a mask and hidden by a select of -inf (or of a "
          "fill of -1e4 or less)";
    return failure();
  }
  chain.parts.push_back(chain.scores);
  // The kernel never writes the scores or the probabilities.
  for (Value value : intermediates)
    if (!value.hasOneUse()) {
      why = describeOp(value.getDefiningOp()) +
            " is also read outside the attention; the fused kernel never "
            "writes the scores or the probabilities";
      return failure();
    }
  // From here on the shape is attention's; what stops it gets a reason.
  if (std::optional<std::string> unsupported =
          whyNotKernel(chain, probabilities)) {
    why = *unsupported;
    return failure();
  }
  return chain;
}

/// `value` with leading 1s up to rank 4.
Value toRank4(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 4)
    return value;
  SmallVector<int64_t> shape(4 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return ReshapeOp::create(b, loc, type.clone(shape), value);
}

struct FuseRecognizeAttentionPass
    : public opfuse::fuse::impl::FuseRecognizeAttentionBase<
          FuseRecognizeAttentionPass> {
  using FuseRecognizeAttentionBase::FuseRecognizeAttentionBase;

  void runOnOperation() override {
    SmallVector<SoftmaxOp> softmaxes;
    getOperation().walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    for (SoftmaxOp softmax : softmaxes) {
      bool between = false;
      std::string why;
      FailureOr<AttentionChain> chain = matchChain(softmax, between, why);
      if (failed(chain)) {
        if (between)
          opfuse::addPassStatistic("fuse-recognize-attention", chainsRefused);
        if (explain && between && !why.empty())
          explainAt(softmax, "fuse-recognize-attention", ExplainKind::Missed,
                    "not-attention", "not an attention kernel: " + why);
        continue;
      }
      rewrite(*chain);
    }
  }

  void rewrite(AttentionChain &chain) {
    MatmulOp output = chain.output;
    OpBuilder b(output);
    Location loc = b.getFusedLoc(
        {chain.scores.getLoc(), chain.softmax.getLoc(), output.getLoc()});
    Value k = chain.k;
    if (!chain.kRowsAreKeys) {
      // k is [.., D, Sk]. Written by the model as the transpose of a
      // [.., Sk, D] tensor, that tensor is k; otherwise k is transposed.
      auto type = cast<RankedTensorType>(k.getType());
      const int64_t rank = type.getRank();
      SmallVector<int64_t> permutation;
      for (int64_t d = 0; d < rank; ++d)
        permutation.push_back(d);
      std::swap(permutation[rank - 1], permutation[rank - 2]);
      auto transpose = k.getDefiningOp<TransposeOp>();
      if (transpose && transpose.getPermutation() == ArrayRef(permutation)) {
        k = transpose.getInput();
      } else {
        SmallVector<int64_t> shape(type.getShape());
        std::swap(shape[rank - 1], shape[rank - 2]);
        k = TransposeOp::create(b, loc, type.clone(shape), k,
                                b.getDenseI64ArrayAttr(permutation));
      }
    }
    Value q = toRank4(b, loc, chain.q);
    k = toRank4(b, loc, k);
    Value v = toRank4(b, loc, chain.v);
    Value mask = chain.mask;
    if (SelectOp select = chain.hide; select && !chain.causal) {
      // The select as an additive mask over its condition's shape: 0 where
      // the score is kept, the fill where it is hidden.
      Type element = cast<RankedTensorType>(chain.q.getType()).getElementType();
      auto scalar = RankedTensorType::get({}, element);
      auto splat = [&](double value) -> Value {
        return ConstantOp::create(
            b, loc, scalar,
            DenseElementsAttr::get(scalar, b.getFloatAttr(element, value)));
      };
      Value fill = splat(chain.hideFill), zero = splat(0.0);
      Value hidden = SelectOp::create(b, loc, select.getCondition(),
                                      chain.hiddenWhenTrue ? fill : zero,
                                      chain.hiddenWhenTrue ? zero : fill);
      mask = mask ? AddOp::create(b, loc, hidden, mask).getResult() : hidden;
    }
    auto attention = AttentionOp::create(
        b, loc, q, k, v, mask,
        b.getF32FloatAttr(static_cast<float>(chain.scale)),
        chain.softcap > 0 ? b.getF32FloatAttr(static_cast<float>(chain.softcap))
                          : FloatAttr(),
        chain.causal ? b.getUnitAttr() : UnitAttr());
    Value result = attention.getResult();
    if (result.getType() != output.getType())
      result = ReshapeOp::create(b, loc, output.getType(), result);
    opfuse::addPassStatistic("fuse-recognize-attention", attentionsFormed);
    if (explain)
      explainAt(attention, "fuse-recognize-attention", ExplainKind::Passed,
                "attention",
                "matmul, scale, mask, softmax and matmul recognised as one "
                "attention");
    output.getResult().replaceAllUsesWith(result);
    // Output first: each part is read only by the one before it. The
    // model's transpose of k and the scale's constant go with them when
    // nothing else reads them.
    SmallVector<Operation *> dead(chain.parts);
    if (Operation *def = chain.k.getDefiningOp())
      dead.push_back(def);
    if (chain.hide)
      if (Operation *def = chain.hide.getCondition().getDefiningOp();
          def && isa<ConstantOp>(def))
        dead.push_back(def);
    for (Operation *part : chain.parts)
      if (isa<MulOp, DivOp, SelectOp>(part))
        for (Value operand : part->getOperands())
          if (Operation *def = operand.getDefiningOp();
              def && isa<ConstantOp>(def))
            dead.push_back(def);
    for (Operation *op : dead)
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
