//===- RowKernel.cpp - Ops that form one row-reduction kernel -------------===//
//
// Classifies every value of a candidate kernel as per-element, per-row,
// broadcast or scalar, and rejects what the row emitter cannot evaluate,
// naming the op and the reason.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "llvm/ADT/DenseSet.h"

#include <functional>

using namespace mlir;

namespace opfuse::fuse {

bool isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMaxOp, ReduceMeanOp>(op);
}

bool isComposite(Operation *op) {
  return isa<SoftmaxOp, LayerNormOp, RmsNormOp, AttentionOp>(op);
}

bool isDecomposedOp(Operation *op) {
  auto conv = dyn_cast<Conv2DOp>(op);
  return isComposite(op) || (conv && decomposesAsWindows(conv));
}

std::optional<RowShape> getRowShape(Operation *op) {
  if (!isReduction(op))
    return std::nullopt;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  const int64_t rank = input.getRank();
  if (axes.empty())
    return std::nullopt;
  RowShape shape;
  shape.rows = getNumElements(op->getResult(0).getType());
  shape.rowLength = shape.rows == 0 ? 0 : getNumElements(input) / shape.rows;
  for (auto [i, axis] : llvm::enumerate(axes))
    shape.strided |= axis != rank - static_cast<int64_t>(axes.size()) +
                                 static_cast<int64_t>(i);
  if (shape.strided) {
    shape.inputShape.assign(input.getShape().begin(), input.getShape().end());
    shape.axes.assign(axes.begin(), axes.end());
  }
  return shape;
}

bool broadcastsPerRow(ArrayRef<int64_t> valueShape,
                      ArrayRef<int64_t> contextShape, int64_t rows) {
  const int64_t rank = contextShape.size();
  const int64_t offset = rank - static_cast<int64_t>(valueShape.size());
  if (offset < 0)
    return false;
  auto valueDim = [&](int64_t d) {
    return d < offset ? int64_t(1) : valueShape[d - offset];
  };
  // Try every split of the context into rows x row whose leading product is
  // `rows`: leading dimensions must be the value's, trailing ones 1.
  int64_t leading = 1;
  for (int64_t split = 0; split <= rank; ++split) {
    if (split > 0)
      leading *= contextShape[split - 1];
    if (leading != rows)
      continue;
    bool matches = true;
    for (int64_t d = 0; d < rank && matches; ++d)
      matches = d < split ? valueDim(d) == contextShape[d] : valueDim(d) == 1;
    if (matches)
      return true;
  }
  return false;
}

namespace {

/// Strided rows: whether a value of `valueShape`, broadcast (NumPy rules)
/// to the reductions' `inputShape`, is constant along the reduced `axes`
/// and follows the kept dimensions, so that it holds one element per row.
bool broadcastsPerStridedRow(ArrayRef<int64_t> valueShape,
                             ArrayRef<int64_t> inputShape,
                             ArrayRef<int64_t> axes) {
  const int64_t rank = inputShape.size();
  const int64_t offset = rank - static_cast<int64_t>(valueShape.size());
  if (offset < 0)
    return false;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = d < offset ? 1 : valueShape[d - offset];
    if (llvm::is_contained(axes, d) ? size != 1 : size != inputShape[d])
      return false;
  }
  return true;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

} // namespace

/// The rows of the first reduction among `ops`: nullopt with the reason
/// in `why` when there is none or a reduction reduces no axis.
static std::optional<RowShape> findRowShape(ArrayRef<Operation *> ops,
                                            std::string &why) {
  std::optional<RowShape> first;
  for (Operation *op : ops) {
    if (!isReduction(op))
      continue;
    std::optional<RowShape> shape = getRowShape(op);
    if (!shape) {
      why = describeOp(op) + " reduces no axis";
      return std::nullopt;
    }
    if (!first)
      first = shape;
  }
  if (!first)
    why = "it contains no reduction";
  return first;
}

std::optional<RowKernelInfo> analyzeRowKernel(ArrayRef<Operation *> ops,
                                              ArrayRef<Value> outputs,
                                              std::string &why) {
  RowKernelInfo info;
  std::optional<RowShape> firstShape = findRowShape(ops, why);
  if (!firstShape)
    return std::nullopt;
  info.shape = *firstShape;
  const int64_t rows = info.shape.rows;
  const int64_t elements = rows * info.shape.rowLength;
  llvm::DenseSet<Operation *> inside(ops.begin(), ops.end());

  auto fail = [&](Operation *op, const Twine &reason) {
    why = (describeOp(op) + " " + reason).str();
    return std::nullopt;
  };
  // Inputs: per element when they have as many elements, otherwise read by
  // broadcast (or at the row index, when a per-row op uses them).
  auto kindOf = [&](Value value) -> RowValueKind {
    auto it = info.kinds.find(value);
    if (it != info.kinds.end())
      return it->second;
    Operation *def = value.getDefiningOp();
    RowValueKind kind;
    if (def && !inside.count(def) && isSplatConstant(def))
      kind = RowValueKind::Scalar;
    else if (getNumElements(value.getType()) == elements)
      kind = RowValueKind::Element;
    else
      kind = RowValueKind::Broadcast;
    info.kinds[value] = kind;
    return kind;
  };
  auto isInput = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return !def || !inside.count(def);
  };
  // A value that is read, or computed from what is read, at the row index
  // (or at 0): inputs of one element per row or of one element, and ops on
  // those. Broadcasting keeps such a chain's shapes equal up to leading 1s.
  std::function<bool(Value)> isRowIndexable = [&](Value value) {
    const int64_t count = getNumElements(value.getType());
    if (count == 1 || kindOf(value) == RowValueKind::Scalar)
      return true;
    if (count != rows)
      return false;
    if (isInput(value))
      return true;
    Operation *def = value.getDefiningOp();
    return isElementwise(def) && llvm::all_of(def->getOperands(), [&](Value v) {
             return kindOf(v) == RowValueKind::Row || isRowIndexable(v);
           });
  };

  for (Operation *op : ops) {
    if (isSplatConstant(op)) {
      info.kinds[op->getResult(0)] = RowValueKind::Scalar;
      continue;
    }
    if (isReduction(op)) {
      std::optional<RowShape> shape = getRowShape(op);
      if (!(*shape == info.shape) && shape->rows == info.shape.rows &&
          shape->rowLength == info.shape.rowLength)
        return fail(op, "reduces other axes of its input than the kernel's "
                        "other reductions, so the rows differ");
      if (!(*shape == info.shape))
        return fail(op, "reduces rows of " + Twine(shape->rowLength) +
                            " elements (" + Twine(shape->rows) +
                            " rows), but the kernel's rows have " +
                            Twine(info.shape.rowLength) + " (" + Twine(rows) +
                            " rows)");
      if (kindOf(op->getOperand(0)) != RowValueKind::Element)
        return fail(op, "reduces a value that is not per element");
      info.kinds[op->getResult(0)] = RowValueKind::Row;
      continue;
    }
    if (isa<ReshapeOp>(op)) {
      RowValueKind kind = kindOf(op->getOperand(0));
      if (kind != RowValueKind::Element && kind != RowValueKind::Row)
        return fail(op, "reshapes a value that is neither per element nor "
                        "per row");
      if (kind == RowValueKind::Element && info.shape.strided)
        return fail(op, "reshapes a per-element value of a kernel that "
                        "reduces leading axes");
      info.kinds[op->getResult(0)] = kind;
      continue;
    }
    if (!isElementwise(op))
      return fail(op, "is neither elementwise nor a row reduction");

    Value result = op->getResult(0);
    const int64_t count = getNumElements(result.getType());
    bool hasRowOperand = false;
    for (Value operand : op->getOperands())
      hasRowOperand |= kindOf(operand) == RowValueKind::Row;

    if (count == elements) {
      // Per element: per-row operands must broadcast over their row.
      if (info.shape.strided &&
          shapeOf(result) != ArrayRef<int64_t>(info.shape.inputShape))
        return fail(op, "has shape " + formatShape(shapeOf(result)) +
                            ", not the shape " +
                            formatShape(info.shape.inputShape) +
                            " whose leading axes the kernel reduces");
      for (Value operand : op->getOperands())
        if (kindOf(operand) == RowValueKind::Row &&
            !(info.shape.strided
                  ? broadcastsPerStridedRow(shapeOf(operand),
                                            info.shape.inputShape,
                                            info.shape.axes)
                  : broadcastsPerRow(shapeOf(operand), shapeOf(result), rows)))
          return fail(op, "broadcasts a per-row value of shape " +
                              formatShape(shapeOf(operand)) +
                              " across rows, not along them");
      info.kinds[result] = RowValueKind::Element;
    } else if (hasRowOperand) {
      if (count != rows)
        return fail(op, "combines a per-row value into a shape of " +
                            Twine(count) + " elements, neither per row (" +
                            Twine(rows) + ") nor per element");
      for (Value operand : op->getOperands())
        if (kindOf(operand) != RowValueKind::Row && !isRowIndexable(operand))
          return fail(op, "combines a per-row value with a value that is "
                          "not one per row");
      info.kinds[result] = RowValueKind::Row;
    } else {
      for (Value operand : op->getOperands())
        if (kindOf(operand) == RowValueKind::Element)
          return fail(op, "reduces the size of a per-element value");
      info.kinds[result] = RowValueKind::Broadcast;
    }
  }

  for (Value output : outputs) {
    RowValueKind kind = kindOf(output);
    if (kind != RowValueKind::Element && kind != RowValueKind::Row) {
      Operation *def = output.getDefiningOp();
      why = (def ? describeOp(def) : std::string("an input")) +
            " writes an output that is neither per element nor per row";
      return std::nullopt;
    }
  }
  return info;
}

} // namespace opfuse::fuse
