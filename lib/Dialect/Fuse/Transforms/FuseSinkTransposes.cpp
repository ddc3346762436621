//===- FuseSinkTransposes.cpp - Transposes moved until they cancel --------===//
//
// An imported convolutional network keeps its activations NCHW while
// fuse.conv2d computes NHWC, so every convolution sits between two
// transposes and the bias, normalisation, activation and residual add
// between convolutions fuse with a transpose instead of into the
// convolution's epilogue. Transposes commute with elementwise ops (their
// broadcast operands permuted alike), reductions (axes renumbered), slices
// and concats, so this pass moves them down through such ops until they
// meet their inverses and vanish.
//
// A transpose is moved only as part of a region: every op that can be
// computed in the transpose's input layout, grown forward from it, with
// the transposes of the same layout it meets absorbed. Where a value of the
// region is read by an op outside it, the transpose is made again there;
// the region is rewritten only when the transposes it leaves move fewer
// bytes than those it removes, so each rewrite strictly lowers the bytes
// transposed and the pass ends.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/FuseTraits.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSESINKTRANSPOSES
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {

/// fuse-sink-transposes' statistics (--mlir-pass-statistics).
constexpr opfuse::PassStatistic regionsRewritten{
    "regions", "Regions rewritten in their transposes' input layout"};
constexpr opfuse::PassStatistic transposesRemoved{
    "transposes-removed", "Transposes taken into a rewritten region"};
constexpr opfuse::PassStatistic transposesMade{
    "transposes-made", "Transposes made again where a region's values leave"};
constexpr opfuse::PassStatistic bytesSaved{
    "bytes-saved", "Bytes the transposes no longer move (read and written)"};

using Permutation = SmallVector<int64_t>;

/// Whether transposing `shape` by `p` keeps the row-major order of the
/// elements: only dimensions of size 1 move, so a reshape does it.
bool isReshape(ArrayRef<int64_t> shape, ArrayRef<int64_t> p) {
  int64_t last = -1;
  for (int64_t dim : p) {
    if (shape[dim] == 1)
      continue;
    if (dim < last)
      return false;
    last = dim;
  }
  return true;
}

int64_t bytesOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return getNumElements(type) * getElementByteSize(type.getElementType());
}

bool isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMaxOp, ReduceMeanOp>(op);
}

/// A tensor of one value repeated (a pool's padding: broadcast_to of a
/// scalar), which any layout of its shape broadcasts again for free.
bool isSplatBroadcast(Value value) {
  auto broadcast = value.getDefiningOp<BroadcastToOp>();
  return broadcast && getNumElements(broadcast.getInput().getType()) == 1;
}

/// A constant this pass may permute at compile time: a splat, a dense
/// literal small enough to reorder element by element, or a splat
/// broadcast.
bool isFoldableConstant(Value value) {
  if (isSplatBroadcast(value))
    return true;
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && (dense.isSplat() || dense.getNumElements() <= 65536);
}

/// An operand a region's op may read in any layout at little cost: a
/// broadcast one (fewer elements than the result of rank `rank`, where
/// permuting it is a reshape or a small transpose) or one permuted at
/// compile time.
bool isBroadcastOrConstant(Value operand, int64_t rank, int64_t resultSize) {
  auto type = cast<RankedTensorType>(operand.getType());
  return type.getRank() <= rank &&
         (getNumElements(type) < resultSize || isFoldableConstant(operand));
}

/// `type`'s shape with leading ones up to `rank`, as broadcasting reads it.
SmallVector<int64_t> broadcastShape(RankedTensorType type, int64_t rank) {
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return shape;
}

/// The ops that can be computed in one transposed layout, grown from one
/// transpose, and what rewriting them would cost.
class Region {
public:
  explicit Region(TransposeOp seed) : seed(seed) {
    absorb(seed, Permutation(seed.getPermutation()));
  }

  /// Adds every op that can join, until none can.
  void grow();

  /// Bytes of transposes removed, and those made again where values of the
  /// region are read outside it.
  int64_t removedBytes() const;
  int64_t keptBytes() const;

  /// Rewrites the region in its stored layouts; returns how many transposes
  /// it made again (the pass's next round tries them like any other).
  int64_t rewrite();

  size_t opCount() const { return members.size(); }
  /// Whether `op` is rewritten with the region (an op of it or a transpose
  /// it absorbed).
  bool contains(Operation *op) const {
    auto t = dyn_cast<TransposeOp>(op);
    return members.count(op) || (t && absorbed.count(t));
  }
  size_t transposeCount() const { return absorbed.size(); }
  TransposeOp seed;

private:
  /// `t` joins: its result is its stored input transposed by `permutation`.
  void absorb(TransposeOp t, Permutation permutation) {
    absorbed.insert(t);
    layouts[t.getResult()] = std::move(permutation);
    worklist.push_back(t.getResult());
  }
  /// Whether `user` joins the region (and its result with a layout).
  bool tryJoin(Operation *user);
  /// The layout `operand` of an elementwise op in the layout `p` takes:
  /// true where it is in the region with `p`, or a transpose of `p` that
  /// can join, or small or a constant (permuted by the rewrite).
  bool acceptsOperand(Operation *user, Value operand, ArrayRef<int64_t> p,
                      int64_t resultSize);
  /// Whether `value` is computed in the layout `p` by elementwise ops (into
  /// `chain`, producers first) from transposes of `p` (into `sources`),
  /// values of the region, small operands and constants.
  bool canPull(Value value, ArrayRef<int64_t> p,
               SmallVectorImpl<Operation *> &chain,
               SmallVectorImpl<TransposeOp> &sources, int depth);
  /// Values of the region read by ops outside it.
  SmallVector<Value> boundary() const;
  /// What `operand` (outside the region) is in the layout `p`, built at `b`.
  Value permuteOperand(OpBuilder &b, Location loc, Value operand,
                       ArrayRef<int64_t> p, int64_t rank);

  /// Each value of the region: `transpose(stored, permutation)`, where
  /// `stored` is an absorbed transpose's input from outside the region or
  /// the rewritten op that computes it in the stored layout.
  DenseMap<Value, Permutation> layouts;
  llvm::SetVector<TransposeOp> absorbed;
  llvm::SetVector<Operation *> members;
  SmallVector<Value> worklist;
  SmallVector<Operation *> pending;
  /// The rewritten (stored-layout) value of each region value.
  DenseMap<Value, Value> stored;
  /// Operands outside the region the function transposes into the stored
  /// layout already: that transpose's result.
  DenseMap<Value, Value> transposedAlready;
  /// Those transposes, which stay (a permutation that is its own inverse
  /// would otherwise let the region absorb one the rewrite reads).
  DenseSet<TransposeOp> readInPlace;
};

bool Region::acceptsOperand(Operation *user, Value operand, ArrayRef<int64_t> p,
                            int64_t resultSize) {
  if (auto it = layouts.find(operand); it != layouts.end())
    return ArrayRef<int64_t>(it->second) == p &&
           cast<RankedTensorType>(operand.getType()).getRank() ==
               static_cast<int64_t>(p.size());
  // A transpose of a value of the region joins as that value's user, with
  // the permutations composed; the op is tried again then.
  if (auto t = operand.getDefiningOp<TransposeOp>();
      t && t.getPermutation() == p && t->getBlock() == seed->getBlock() &&
      !layouts.count(t.getInput()) && !readInPlace.count(t)) {
    absorb(t, Permutation(p));
    return true;
  }
  // An operand the function already transposes into the stored layout
  // before `user` (a block's input, transposed for its convolution and read
  // again by the residual add) costs nothing.
  const Permutation inverse = invertPermutationVector(p);
  for (Operation *other : operand.getUsers())
    if (auto t = dyn_cast<TransposeOp>(other);
        t && t.getPermutation() == ArrayRef<int64_t>(inverse) &&
        t->getBlock() == user->getBlock() && t->isBeforeInBlock(user) &&
        !absorbed.count(t)) {
      transposedAlready[operand] = t.getResult();
      readInPlace.insert(t);
      return true;
    }
  if (isBroadcastOrConstant(operand, p.size(), resultSize))
    return true;
  // A full-size operand computed in the same layout from transposes of its
  // own (a downsampling branch's normalisation, beside the main branch's)
  // joins with the ops that compute it.
  SmallVector<Operation *> chain;
  SmallVector<TransposeOp> sources;
  if (!canPull(operand, p, chain, sources, /*depth=*/0))
    return false;
  for (TransposeOp t : sources)
    if (!absorbed.count(t))
      absorb(t, Permutation(p));
  for (Operation *op : chain) {
    members.insert(op);
    layouts[op->getResult(0)] = Permutation(p);
    worklist.push_back(op->getResult(0));
  }
  return true;
}

bool Region::canPull(Value value, ArrayRef<int64_t> p,
                     SmallVectorImpl<Operation *> &chain,
                     SmallVectorImpl<TransposeOp> &sources, int depth) {
  if (auto it = layouts.find(value); it != layouts.end())
    return ArrayRef<int64_t>(it->second) == p;
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != seed->getBlock() || depth > 8)
    return false;
  if (llvm::is_contained(chain, op))
    return true;
  if (auto t = dyn_cast<TransposeOp>(op)) {
    if (t.getPermutation() != p || layouts.count(t.getInput()) ||
        readInPlace.count(t))
      return false;
    if (!llvm::is_contained(sources, t))
      sources.push_back(t);
    return true;
  }
  auto type = cast<RankedTensorType>(value.getType());
  if (!op->hasTrait<BroadcastElementwise>() || op->getNumResults() != 1 ||
      type.getRank() != static_cast<int64_t>(p.size()))
    return false;
  const int64_t size = getNumElements(type);
  bool fromTranspose = false;
  for (Value operand : op->getOperands()) {
    if (isBroadcastOrConstant(operand, type.getRank(), size))
      continue;
    if (!canPull(operand, p, chain, sources, depth + 1))
      return false;
    fromTranspose = true;
  }
  // Producers in block order: each after the ones it reads.
  if (fromTranspose)
    chain.push_back(op);
  return fromTranspose;
}

bool Region::tryJoin(Operation *user) {
  if (user->getBlock() != seed->getBlock() || user->getNumResults() != 1)
    return false;
  Value result = user->getResult(0);
  auto resultType = cast<RankedTensorType>(result.getType());
  if (auto t = dyn_cast<TransposeOp>(user)) {
    // transpose(transpose(s, p), q) = transpose(s, p[q[i]]).
    absorb(t, applyPermutation(ArrayRef<int64_t>(layouts.at(t.getInput())),
                               t.getPermutation()));
    return true;
  }
  // The operand of the region the layout comes from.
  Value anchor;
  for (Value operand : user->getOperands())
    if (layouts.count(operand)) {
      anchor = operand;
      break;
    }
  const Permutation p = layouts.at(anchor);
  const int64_t rank = static_cast<int64_t>(p.size());
  Permutation resultPermutation = p;
  if (user->hasTrait<BroadcastElementwise>() || isa<ConcatOp>(user)) {
    if (resultType.getRank() != rank)
      return false;
    const int64_t size = getNumElements(resultType);
    // A concat's other inputs are smaller than its result, so they join as
    // broadcast operands do (a transpose of their own, which keptBytes
    // counts, where they are neither constants nor moved as a reshape).
    for (Value operand : user->getOperands())
      if (!acceptsOperand(user, operand, p, size))
        return false;
  } else if (isReduction(user)) {
    if (!user->hasAttr("keepdims")) {
      // The dimensions left keep their order in both layouts: the stored
      // ones renumbered among themselves.
      auto axes = cast<DenseI64ArrayAttr>(user->getAttr("axes")).asArrayRef();
      SmallVector<int64_t> storedLeft, logicalLeft;
      for (int64_t dim = 0; dim < rank; ++dim)
        if (!llvm::is_contained(axes, dim))
          logicalLeft.push_back(p[dim]);
      storedLeft = logicalLeft;
      llvm::sort(storedLeft);
      resultPermutation.clear();
      for (int64_t dim : logicalLeft)
        resultPermutation.push_back(llvm::find(storedLeft, dim) -
                                    storedLeft.begin());
    }
  } else if (!isa<SliceOp>(user)) {
    return false;
  }
  members.insert(user);
  layouts[result] = resultPermutation;
  worklist.push_back(result);
  return true;
}

void Region::grow() {
  bool progress = true;
  // `op` joins, or waits for more of its operands to join.
  auto visit = [&](Operation *op) {
    if (contains(op))
      return;
    if (tryJoin(op))
      progress = true;
    else
      pending.push_back(op);
  };
  while (progress) {
    progress = false;
    while (!worklist.empty())
      for (Operation *user : worklist.pop_back_val().getUsers())
        visit(user);
    // An op refused for an operand outside the region may take it now
    // that more of its operands have joined.
    SmallVector<Operation *> retry;
    std::swap(retry, pending);
    for (Operation *op : retry)
      visit(op);
  }
}

SmallVector<Value> Region::boundary() const {
  SmallVector<Value> result;
  for (auto &[value, layout] : layouts)
    if (llvm::any_of(value.getUsers(),
                     [&](Operation *user) { return !contains(user); }))
      result.push_back(value);
  // Block order, so that the rewrite is deterministic.
  llvm::sort(result, [](Value a, Value b) {
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    return x != y && x->isBeforeInBlock(y);
  });
  return result;
}

int64_t Region::removedBytes() const {
  int64_t bytes = 0;
  for (TransposeOp t : absorbed)
    bytes += bytesOf(t.getResult());
  return bytes;
}

int64_t Region::keptBytes() const {
  int64_t bytes = 0;
  for (Value value : boundary()) {
    const Permutation &permutation = layouts.at(value);
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> storedShape =
        applyPermutation(type.getShape(), invertPermutationVector(permutation));
    if (!isReshape(storedShape, permutation))
      bytes += bytesOf(value);
  }
  // Operands permuted by a kernel of their own (neither constants nor
  // reshapes).
  for (Operation *op : members) {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    const Permutation &p = layouts.at(op->getResult(0));
    for (Value operand : op->getOperands()) {
      if (layouts.count(operand) || transposedAlready.count(operand) ||
          isFoldableConstant(operand))
        continue;
      auto type = cast<RankedTensorType>(operand.getType());
      if (!isReshape(broadcastShape(type, resultType.getRank()),
                     invertPermutationVector(p)))
        bytes += bytesOf(operand);
    }
  }
  return bytes;
}

Value Region::permuteOperand(OpBuilder &b, Location loc, Value operand,
                             ArrayRef<int64_t> p, int64_t rank) {
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<int64_t> shape = broadcastShape(type, rank);
  const Permutation inverse = invertPermutationVector(p);
  auto storedType = RankedTensorType::get(
      applyPermutation<int64_t>(shape, inverse), type.getElementType());
  if (isSplatBroadcast(operand))
    return BroadcastToOp::create(
        b, loc, storedType, operand.getDefiningOp<BroadcastToOp>().getInput());
  if (auto constant = operand.getDefiningOp<ConstantOp>()) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    if (dense.isSplat() || isReshape(shape, inverse))
      return ConstantOp::create(b, loc, dense.reshape(storedType));
    // Element by element: stored index j is logical index inverse-mapped.
    SmallVector<Attribute> values(dense.getValues<Attribute>());
    SmallVector<Attribute> reordered(values.size());
    SmallVector<int64_t> storedShape(storedType.getShape());
    SmallVector<int64_t> index(rank, 0);
    for (size_t linear = 0; linear < values.size(); ++linear) {
      // index: the logical multi-index of element `linear`.
      int64_t rest = static_cast<int64_t>(linear);
      for (int64_t d = rank - 1; d >= 0; --d) {
        index[d] = rest % shape[d];
        rest /= shape[d];
      }
      int64_t target = 0;
      for (int64_t j = 0; j < rank; ++j)
        target = target * storedShape[j] + index[inverse[j]];
      reordered[target] = values[linear];
    }
    return ConstantOp::create(b, loc,
                              DenseElementsAttr::get(storedType, reordered));
  }
  Value value = operand;
  if (type.getRank() != rank || isReshape(shape, inverse))
    value = ReshapeOp::create(
        b, loc,
        isReshape(shape, inverse)
            ? storedType
            : RankedTensorType::get(shape, type.getElementType()),
        value);
  if (!isReshape(shape, inverse))
    value = TransposeOp::create(b, loc, value, inverse);
  return value;
}

int64_t Region::rewrite() {
  SmallVector<Value> outside = boundary();
  // Every op of the region and every absorbed transpose, in block order.
  SmallVector<Operation *> ops(members.begin(), members.end());
  for (TransposeOp t : absorbed)
    ops.push_back(t);
  llvm::sort(ops, [](Operation *a, Operation *b) {
    return a != b && a->isBeforeInBlock(b);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Value result = op->getResult(0);
    if (auto t = dyn_cast<TransposeOp>(op)) {
      Value input = t.getInput();
      stored[result] = layouts.count(input) ? stored.at(input) : input;
      continue;
    }
    const Permutation &p = layouts.at(result);
    auto resultType = cast<RankedTensorType>(result.getType());
    IRMapping mapping;
    Permutation operandPermutation = p;
    if (isReduction(op))
      operandPermutation = layouts.at(op->getOperand(0));
    for (Value operand : op->getOperands()) {
      if (layouts.count(operand))
        mapping.map(operand, stored.at(operand));
      else if (auto it = transposedAlready.find(operand);
               it != transposedAlready.end())
        mapping.map(operand, it->second);
      else
        mapping.map(operand,
                    permuteOperand(b, op->getLoc(), operand, operandPermutation,
                                   resultType.getRank()));
    }
    Operation *clone = b.clone(*op, mapping);
    const Permutation inverse = invertPermutationVector(p);
    clone->getResult(0).setType(
        RankedTensorType::get(applyPermutation(resultType.getShape(), inverse),
                              resultType.getElementType()));
    if (isReduction(op)) {
      SmallVector<int64_t> axes;
      for (int64_t axis :
           cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef())
        axes.push_back(operandPermutation[axis]);
      llvm::sort(axes);
      clone->setAttr("axes", b.getDenseI64ArrayAttr(axes));
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      auto reorder = [&](ArrayRef<int64_t> values) {
        return b.getDenseI64ArrayAttr(applyPermutation(values, inverse));
      };
      clone->setAttr("offsets", reorder(slice.getOffsets()));
      clone->setAttr("sizes", reorder(slice.getSizes()));
      clone->setAttr("strides", reorder(slice.getStrides()));
    } else if (auto concat = dyn_cast<ConcatOp>(op)) {
      clone->setAttr("axis", b.getI64IntegerAttr(p[concat.getAxis()]));
    }
    stored[result] = clone->getResult(0);
  }
  // Values read outside: the transpose again (a reshape where only
  // dimensions of size 1 move, nothing where the layouts cancelled).
  int64_t made = 0;
  for (Value value : outside) {
    Value inner = stored.at(value);
    const Permutation &p = layouts.at(value);
    OpBuilder b(value.getContext());
    b.setInsertionPointAfterValue(inner);
    Location loc = value.getLoc();
    Value replacement = inner;
    auto innerType = cast<RankedTensorType>(inner.getType());
    if (isReshape(innerType.getShape(), p)) {
      if (!isIdentityPermutation(p))
        replacement = ReshapeOp::create(b, loc, value.getType(), inner);
    } else {
      replacement = TransposeOp::create(b, loc, inner, p);
      ++made;
    }
    value.replaceUsesWithIf(
        replacement, [&](OpOperand &use) { return !contains(use.getOwner()); });
  }
  // Constants and splat broadcasts only the region read (permuted copies
  // replace them).
  SmallVector<Operation *> constants;
  for (Operation *op : members)
    for (Value operand : op->getOperands())
      if (operand.getDefiningOp<ConstantOp>() || isSplatBroadcast(operand))
        constants.push_back(operand.getDefiningOp());
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  llvm::sort(constants);
  constants.erase(llvm::unique(constants), constants.end());
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
  return made;
}

struct FuseSinkTransposesPass
    : public opfuse::fuse::impl::FuseSinkTransposesBase<
          FuseSinkTransposesPass> {
  using FuseSinkTransposesBase::FuseSinkTransposesBase;

  void runOnOperation() override {
    // Every rewrite lowers the bytes transposed, so the rounds end; each
    // tries every transpose left, the ones made again included. A region
    // left as it is is remarked on once, after the last round.
    while (true) {
      SmallVector<std::pair<TransposeOp, std::string>> kept;
      SmallVector<TransposeOp> transposes;
      getOperation().walk([&](TransposeOp t) { transposes.push_back(t); });
      auto rewritten = llvm::find_if(
          transposes, [&](TransposeOp t) { return sinkFrom(t, kept); });
      if (rewritten != transposes.end())
        continue;
      if (explain)
        for (auto &[t, message] : kept)
          explainAt(t, "fuse-sink-transposes", ExplainKind::Missed,
                    "transpose-kept", message);
      return;
    }
  }

  /// Rewrites the region grown from `t` where that pays (true), or records
  /// why it stays in `kept`.
  bool sinkFrom(TransposeOp t,
                SmallVectorImpl<std::pair<TransposeOp, std::string>> &kept) {
    Region region(t);
    region.grow();
    if (region.opCount() == 0 && region.transposeCount() == 1)
      return false;
    const int64_t removed = region.removedBytes(), left = region.keptBytes();
    if (left >= removed) {
      if (region.opCount() > 0)
        kept.push_back(
            {t, ("kept: moved through the " + Twine(region.opCount()) +
                 " op(s) after it, the transposes would move " + Twine(left) +
                 " bytes where they move " + Twine(removed))
                    .str()});
      return false;
    }
    if (explain)
      explainAt(
          t, "fuse-sink-transposes", ExplainKind::Passed, "transposes-sunk",
          Twine(region.transposeCount()) + " transpose(s) moved through " +
              Twine(region.opCount()) + " op(s): " + Twine(removed) +
              " bytes transposed -> " + Twine(left));
    const size_t removedCount = region.transposeCount();
    const int64_t made = region.rewrite();
    opfuse::addPassStatistic("fuse-sink-transposes", regionsRewritten);
    opfuse::addPassStatistic("fuse-sink-transposes", transposesRemoved,
                             removedCount);
    opfuse::addPassStatistic("fuse-sink-transposes", transposesMade, made);
    opfuse::addPassStatistic("fuse-sink-transposes", bytesSaved,
                             2 * (removed - left));
    return true;
  }
};

} // namespace
