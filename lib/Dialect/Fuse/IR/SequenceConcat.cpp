//===- SequenceConcat.cpp - K or V joined along the sequence --------------===//
//
// Recognises a fuse.concat along the sequence axis of an attention's K or
// V inside a kernel, and the pieces the kernel reads in its place.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/SequenceConcat.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

using namespace mlir;

namespace opfuse::fuse {

ConcatOp getSequenceConcat(Value operand,
                           function_ref<bool(Operation *)> member) {
  auto type = cast<RankedTensorType>(operand.getType());
  const int64_t rank = type.getRank();
  if (rank < 2)
    return {};
  auto isView = [&](Operation *op) {
    return member(op) && isStridedViewOp(op);
  };
  std::string why;
  std::optional<StridedView> view = getStridedView(operand, isView, why);
  if (!view)
    return {};
  // The views must leave the concat's layout as it is (Kᵀ transposed back,
  // say): the kernel's rows are then the concat's rows.
  auto concat = view->base.getDefiningOp<ConcatOp>();
  if (!concat || !member(concat) ||
      static_cast<int64_t>(concat.getAxis()) != rank - 2)
    return {};
  std::optional<StridedView> itself =
      getStridedView(concat.getResult(), isView, why);
  if (!itself || view->offset != 0 || view->strides != itself->strides ||
      cast<RankedTensorType>(concat.getType()).getShape() != type.getShape())
    return {};
  return concat;
}

std::optional<SmallVector<SequencePiece>>
getSequencePieces(ConcatOp concat, function_ref<bool(Operation *)> member,
                  std::string &why) {
  if (static_cast<int64_t>(concat.getInputs().size()) > kMaxSequencePieces) {
    why = describeOp(concat) + " joins " +
          std::to_string(concat.getInputs().size()) +
          " tensors; the attention kernel reads at most " +
          std::to_string(kMaxSequencePieces) + " in place";
    return std::nullopt;
  }
  auto isView = [&](Operation *op) {
    return member(op) && isStridedViewOp(op);
  };
  const int64_t axis = concat.getAxis();
  SmallVector<SequencePiece> pieces;
  int64_t firstRow = 0;
  for (Value input : concat.getInputs()) {
    // An empty input adds no rows and is not read.
    if (cast<RankedTensorType>(input.getType()).getDimSize(axis) == 0)
      continue;
    std::optional<StridedView> view = getStridedView(input, isView, why);
    if (!view)
      return std::nullopt;
    if (Operation *def = view->base.getDefiningOp(); def && member(def)) {
      why = describeOp(def) + " computes what " + describeOp(concat) +
            " joins; the attention kernel reads the concat's inputs from "
            "memory";
      return std::nullopt;
    }
    if (view->strides.back() != 1) {
      why = "the head dimension of an input of " + describeOp(concat) +
            " is not contiguous in the buffer it views, so the attention "
            "kernel cannot read it in place";
      return std::nullopt;
    }
    SequencePiece piece;
    piece.input = input;
    piece.view = *view;
    piece.firstRow = firstRow;
    piece.rows = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    firstRow += piece.rows;
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

} // namespace opfuse::fuse
