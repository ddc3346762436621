//===- ComputeOps.cpp - matmul and conv2d ---------------------------------===//
//
// Shape rules and FLOP counts of the compute-bound ops.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace opfuse::fuse {

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  for (auto [label, type] :
       {std::pair<StringRef, RankedTensorType>{"lhs", lhs}, {"rhs", rhs}})
    if (type.getRank() < 2)
      return emitShapeError(loc, name,
                            label + " must have rank >= 2, got rank " +
                                Twine(type.getRank()));
  if (lhs.getElementType() != rhs.getElementType())
    return emitShapeError(loc, name,
                          "operand element types differ: lhs and rhs must "
                          "have the same element type");
  const int64_t lr = lhs.getRank(), rr = rhs.getRank();
  const bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  const int64_t lhsK = ta ? lr - 2 : lr - 1, lhsM = ta ? lr - 1 : lr - 2;
  const int64_t rhsK = tb ? rr - 1 : rr - 2, rhsN = tb ? rr - 2 : rr - 1;
  if (lhs.getDimSize(lhsK) != rhs.getDimSize(rhsK))
    return emitShapeError(loc, name,
                          "contraction dimensions differ: lhs K is " +
                              Twine(lhs.getDimSize(lhsK)) + " (dimension " +
                              Twine(lhsK) + ") but rhs K is " +
                              Twine(rhs.getDimSize(rhsK)) + " (dimension " +
                              Twine(rhsK) + ")");
  FailureOr<SmallVector<int64_t>> batch = broadcastShapes(
      loc, name, {lhs.getShape().drop_back(2), rhs.getShape().drop_back(2)},
      {"lhs batch", "rhs batch"});
  if (failed(batch))
    return failure();
  SmallVector<int64_t> shape = *batch;
  shape.push_back(lhs.getDimSize(lhsM));
  shape.push_back(rhs.getDimSize(rhsN));
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

namespace {
/// matmul(transpose(x, [..., r-1, r-2]), ...) -> matmul(x, ...) with the
/// operand's transpose flag flipped: the GEMM kernels read either layout,
/// so the transpose need not be materialised.
struct FoldMinorTranspose : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto swapsMinor = [](Value operand) -> TransposeOp {
      auto transpose = operand.getDefiningOp<TransposeOp>();
      if (!transpose)
        return nullptr;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      const int64_t rank = perm.size();
      if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
        return nullptr;
      for (int64_t d = 0; d + 2 < rank; ++d)
        if (perm[d] != d)
          return nullptr;
      return transpose;
    };
    TransposeOp lhs = swapsMinor(op.getLhs()), rhs = swapsMinor(op.getRhs());
    if (!lhs && !rhs)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (lhs) {
        op.getLhsMutable().assign(lhs.getInput());
        op.setTransposeA(!op.getTransposeA());
      }
      if (rhs) {
        op.getRhsMutable().assign(rhs.getInput());
        op.setTransposeB(!op.getTransposeB());
      }
    });
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<FoldMinorTranspose>(context);
}

int64_t MatmulOp::getContractionSize() {
  RankedTensorType lhs = getLhs().getType();
  return lhs.getDimSize(getTransposeA() ? lhs.getRank() - 2
                                        : lhs.getRank() - 1);
}

int64_t MatmulOp::getFlops() {
  return 2 * getNumElements(getType()) * getContractionSize();
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto q = cast<RankedTensorType>(adaptor.getQ().getType());
  auto k = cast<RankedTensorType>(adaptor.getK().getType());
  auto v = cast<RankedTensorType>(adaptor.getV().getType());
  for (auto [label, type] :
       {std::pair<StringRef, RankedTensorType>{"q", q}, {"k", k}, {"v", v}}) {
    if (type.getRank() != 4)
      return emitShapeError(loc, name,
                            label +
                                " must be [batch, heads, sequence, head "
                                "dim] (rank 4), got rank " +
                                Twine(type.getRank()));
    if (type.getElementType() != q.getElementType())
      return emitShapeError(loc, name,
                            "q, k and v must have one element type; " + label +
                                " differs from q");
  }
  if (k.getDimSize(0) != q.getDimSize(0) || v.getDimSize(0) != q.getDimSize(0))
    return emitShapeError(
        loc, name,
        "q, k and v must have the same batch (dimension 0): " +
            Twine(q.getDimSize(0)) + ", " + Twine(k.getDimSize(0)) + ", " +
            Twine(v.getDimSize(0)));
  if (k.getDimSize(1) != v.getDimSize(1))
    return emitShapeError(loc, name,
                          "k and v must have the same heads (dimension 1): " +
                              Twine(k.getDimSize(1)) + " and " +
                              Twine(v.getDimSize(1)));
  if (k.getDimSize(1) == 0 || q.getDimSize(1) % k.getDimSize(1) != 0)
    return emitShapeError(loc, name,
                          "q's " + Twine(q.getDimSize(1)) +
                              " heads must be a multiple of k's and v's " +
                              Twine(k.getDimSize(1)));
  if (k.getDimSize(2) != v.getDimSize(2))
    return emitShapeError(loc, name,
                          "k and v must have the same sequence length "
                          "(dimension 2): " +
                              Twine(k.getDimSize(2)) + " and " +
                              Twine(v.getDimSize(2)));
  if (k.getDimSize(3) != q.getDimSize(3))
    return emitShapeError(
        loc, name,
        "q and k must have the same head dim (dimension 3): " +
            Twine(q.getDimSize(3)) + " and " + Twine(k.getDimSize(3)));
  if (FloatAttr softcap = adaptor.getSoftcapAttr();
      softcap && !(softcap.getValueAsDouble() > 0))
    return emitShapeError(loc, name,
                          "softcap must be positive (c tanh(s / c)), got " +
                              std::to_string(softcap.getValueAsDouble()));
  if (Value maskValue = adaptor.getMask()) {
    auto mask = cast<RankedTensorType>(maskValue.getType());
    SmallVector<int64_t> scores = {q.getDimSize(0), q.getDimSize(1),
                                   q.getDimSize(2), k.getDimSize(2)};
    if (mask.getElementType() != q.getElementType())
      return emitShapeError(loc, name,
                            "mask must have q's element type (an additive "
                            "mask; -inf hides a key)");
    if (!broadcastsTo(mask.getShape(), scores))
      return emitShapeError(loc, name,
                            "mask must broadcast to the scores [" +
                                Twine(scores[0]) + ", " + Twine(scores[1]) +
                                ", " + Twine(scores[2]) + ", " +
                                Twine(scores[3]) + "]");
  }
  results.push_back(RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), v.getDimSize(3)},
      q.getElementType()));
  return success();
}

int64_t AttentionOp::getVisiblePairs() {
  const int64_t sq = getQ().getType().getDimSize(2);
  const int64_t sk = getK().getType().getDimSize(2);
  if (!getCausal())
    return sq * sk;
  // Query i sees keys 0..min(i, sk - 1).
  const int64_t full = std::min(sq, sk);
  return full * (full + 1) / 2 + (sq - full) * sk;
}

int64_t AttentionOp::computedKeyTiles(int64_t sq, int64_t sk, bool causal,
                                      int64_t rowsPerTile,
                                      int64_t keysPerTile) {
  const int64_t keyTiles = llvm::divideCeil(sk, keysPerTile);
  const int64_t queryTiles = llvm::divideCeil(sq, rowsPerTile);
  if (!causal)
    return queryTiles * keyTiles;
  int64_t tiles = 0;
  for (int64_t m = 0; m < queryTiles; ++m)
    tiles += std::min<int64_t>(
        keyTiles, llvm::divideCeil((m + 1) * rowsPerTile, keysPerTile));
  return tiles;
}

int64_t AttentionOp::getComputedKeyTiles(int64_t rowsPerTile,
                                         int64_t keysPerTile) {
  return computedKeyTiles(getQ().getType().getDimSize(2),
                          getK().getType().getDimSize(2), getCausal(),
                          rowsPerTile, keysPerTile);
}

int64_t AttentionOp::getFlops() {
  RankedTensorType q = getQ().getType(), v = getV().getType();
  const int64_t heads = q.getDimSize(0) * q.getDimSize(1);
  return heads * getVisiblePairs() *
         (2 * q.getDimSize(3) + 2 * v.getDimSize(3) + 5 +
          (getSoftcapAttr() ? 3 : 0));
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = cast<RankedTensorType>(adaptor.getFilter().getType());
  if (input.getRank() != 4)
    return emitShapeError(loc, name,
                          "input must be NHWC (rank 4), got rank " +
                              Twine(input.getRank()));
  if (filter.getRank() != 4)
    return emitShapeError(loc, name,
                          "filter must be [F, KH, KW, C/groups] (rank 4), got "
                          "rank " +
                              Twine(filter.getRank()));
  if (input.getElementType() != filter.getElementType())
    return emitShapeError(loc, name,
                          "operand element types differ: input and filter "
                          "must have the same element type");
  ArrayRef<int64_t> strides = adaptor.getStrides();
  ArrayRef<int64_t> padding = adaptor.getPadding();
  ArrayRef<int64_t> dilation = adaptor.getDilation();
  ArrayRef<int64_t> inputDilation = adaptor.getInputDilation();
  if (strides.size() != 2 || dilation.size() != 2 || padding.size() != 4)
    return emitShapeError(
        loc, name,
        "expected 2 strides, 4 paddings and 2 dilations, got " +
            Twine(strides.size()) + ", " + Twine(padding.size()) + " and " +
            Twine(dilation.size()));
  if (inputDilation.size() != 2)
    return emitShapeError(loc, name,
                          "expected 2 input dilations, got " +
                              Twine(inputDilation.size()));
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(inputDilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return emitShapeError(loc, name,
                          "strides, dilation and input_dilation must be >= 1 "
                          "and padding >= 0");
  const int64_t groups = adaptor.getGroups();
  const int64_t channels = input.getDimSize(3);
  const int64_t features = filter.getDimSize(0);
  if (channels % groups != 0 || features % groups != 0)
    return emitShapeError(loc, name,
                          "groups (" + Twine(groups) +
                              ") must divide the input channels (" +
                              Twine(channels) + ") and the filter count (" +
                              Twine(features) + ")");
  if (filter.getDimSize(3) != channels / groups)
    return emitShapeError(
        loc, name,
        "filter dimension 3 is " + Twine(filter.getDimSize(3)) +
            " but input channels / groups is " + Twine(channels / groups));
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t size = input.getDimSize(1 + i);
    const int64_t spread = size == 0 ? 0 : (size - 1) * inputDilation[i] + 1;
    const int64_t extent = spread + padding[2 * i] + padding[2 * i + 1] -
                           dilation[i] * (filter.getDimSize(1 + i) - 1) - 1;
    if (extent < 0)
      return emitShapeError(
          loc, name,
          Twine(i == 0 ? "height" : "width") + ": the dilated kernel (" +
              Twine(dilation[i] * (filter.getDimSize(1 + i) - 1) + 1) +
              ") is larger than the padded input (" +
              Twine(spread + padding[2 * i] + padding[2 * i + 1]) + ")");
    out[i] = extent / strides[i] + 1;
  }
  results.push_back(RankedTensorType::get(
      {input.getDimSize(0), out[0], out[1], features}, input.getElementType()));
  return success();
}

int64_t Conv2DOp::getFlops() {
  RankedTensorType filter = getFilter().getType();
  return 2 * getNumElements(getType()) * filter.getDimSize(1) *
         filter.getDimSize(2) * filter.getDimSize(3);
}

} // namespace opfuse::fuse
