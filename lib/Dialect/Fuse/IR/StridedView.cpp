//===- StridedView.cpp - View chains as one strided layout ----------------===//
//
// Walks a chain of views back to the value it starts from, then composes
// their index maps forward: a transpose permutes the strides, a slice adds
// its offsets and multiplies its strides, and a reshape regroups
// dimensions that are contiguous with one another in the layout. A store
// layout composes the same maps backward, from the row-major result to the
// value the chain starts from.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

bool isStridedViewOp(Operation *op) {
  return isa<TransposeOp, SliceOp, ReshapeOp>(op);
}

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 0);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// The strides of `to` when `from` (with `strides`) is reshaped to it, or
/// nullopt when a group of merged dimensions is not contiguous.
std::optional<SmallVector<int64_t>> reshapeStrides(ArrayRef<int64_t> from,
                                                   ArrayRef<int64_t> strides,
                                                   ArrayRef<int64_t> to) {
  // Dimensions of size 1 carry no stride: drop them, then match groups of
  // equal element counts from the innermost dimension out.
  SmallVector<int64_t> sizes, inner;
  for (auto [size, stride] : llvm::zip(from, strides))
    if (size != 1) {
      sizes.push_back(size);
      inner.push_back(stride);
    }
  SmallVector<int64_t> result(to.size(), 0);
  int64_t i = static_cast<int64_t>(sizes.size()) - 1;
  int64_t j = static_cast<int64_t>(to.size()) - 1;
  while (j >= 0) {
    if (to[j] == 1) {
      result[j--] = 0;
      continue;
    }
    if (i < 0)
      return std::nullopt;
    // One group: source dims [i0, i] and target dims [j0, j] hold the same
    // elements; the source dims must be contiguous with one another.
    int64_t source = sizes[i], target = to[j];
    int64_t i0 = i, j0 = j;
    while (source != target) {
      if (source < target) {
        if (--i0 < 0)
          return std::nullopt;
        if (inner[i0] != inner[i0 + 1] * sizes[i0 + 1])
          return std::nullopt;
        source *= sizes[i0];
      } else {
        if (--j0 < 0)
          return std::nullopt;
        target *= to[j0];
      }
    }
    int64_t stride = inner[i];
    for (int64_t d = j; d >= j0; --d) {
      result[d] = to[d] == 1 ? 0 : stride;
      stride *= to[d];
    }
    i = i0 - 1;
    j = j0 - 1;
  }
  if (i >= 0)
    return std::nullopt;
  return result;
}

} // namespace

std::optional<StridedView>
getStridedView(Value value, function_ref<bool(Operation *)> follow,
               std::string &why) {
  SmallVector<Operation *> chain;
  Value base = value;
  while (Operation *def = base.getDefiningOp()) {
    if (!isStridedViewOp(def) || !follow(def))
      break;
    chain.push_back(def);
    base = def->getOperand(0);
  }
  StridedView view;
  view.base = base;
  view.strides = rowMajorStrides(shapeOf(base));
  for (Operation *op : llvm::reverse(chain)) {
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      SmallVector<int64_t> permuted;
      for (int64_t p : transpose.getPermutation())
        permuted.push_back(view.strides[p]);
      view.strides = std::move(permuted);
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      for (auto [d, offset, step] :
           llvm::enumerate(slice.getOffsets(), slice.getStrides())) {
        view.offset += offset * view.strides[d];
        view.strides[d] *= step;
      }
    } else {
      auto reshape = cast<ReshapeOp>(op);
      std::optional<SmallVector<int64_t>> strides = reshapeStrides(
          shapeOf(reshape.getInput()), view.strides, shapeOf(reshape));
      if (!strides) {
        why = describeOp(op) + " merges dimensions that are not contiguous "
                               "after the views before it";
        return std::nullopt;
      }
      view.strides = std::move(*strides);
    }
  }
  return view;
}

std::optional<StridedView>
getStoreLayout(Value value, function_ref<bool(Operation *)> follow,
               std::string &why) {
  StridedView layout;
  layout.base = value;
  layout.strides = rowMajorStrides(shapeOf(value));
  while (Operation *def = layout.base.getDefiningOp()) {
    if (!isStridedViewOp(def) || !follow(def))
      break;
    Value input = def->getOperand(0);
    if (auto slice = dyn_cast<SliceOp>(def)) {
      Operation *before = input.getDefiningOp();
      if (before && isStridedViewOp(before) && follow(before)) {
        why = describeOp(def) + " slices the result of other views; a "
                                "kernel writes a slice only of what it "
                                "computes";
        return std::nullopt;
      }
      if (llvm::any_of(slice.getStrides(),
                       [](int64_t step) { return step != 1; })) {
        why = describeOp(def) + " has steps; a kernel writes only slices of "
                                "consecutive elements of its result";
        return std::nullopt;
      }
      // Same rank, same strides: the box's first element is element 0.
      for (auto [d, offset, size] :
           llvm::enumerate(slice.getOffsets(), shapeOf(slice))) {
        layout.offset -= offset * layout.strides[d];
        layout.lower.push_back(offset);
        layout.upper.push_back(offset + size);
      }
      layout.base = input;
      continue;
    }
    if (auto transpose = dyn_cast<TransposeOp>(def)) {
      // Result dimension j is input dimension permutation[j].
      SmallVector<int64_t> strides(layout.strides.size(), 0);
      for (auto [j, p] : llvm::enumerate(transpose.getPermutation()))
        strides[p] = layout.strides[j];
      layout.strides = std::move(strides);
    } else {
      std::optional<SmallVector<int64_t>> strides = reshapeStrides(
          shapeOf(def->getResult(0)), layout.strides, shapeOf(input));
      if (!strides) {
        why = describeOp(def) + " splits a dimension that the layout of its "
                                "result holds in separated pieces";
        return std::nullopt;
      }
      layout.strides = std::move(*strides);
    }
    layout.base = input;
  }
  return layout;
}

} // namespace opfuse::fuse
