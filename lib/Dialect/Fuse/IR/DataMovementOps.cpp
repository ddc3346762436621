//===- DataMovementOps.cpp - Constants and data-movement fuse ops ---------===//
//
// constant, reshape, transpose, broadcast_to, slice, concat and gather: shape
// rules, folds, and byte counts (none of them does arithmetic).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;

namespace opfuse::fuse {

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

bool isSplatConstant(Operation *op) {
  auto constant = dyn_cast_if_present<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

bool isDataMovement(Operation *op) {
  return isa<TransposeOp, SliceOp, ConcatOp, GatherOp>(op);
}

bool isElementwise(Operation *op) {
  return op->hasTrait<BroadcastElementwise>() || isa<BroadcastToOp>(op);
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
int64_t ConstantOp::getFlops() { return 0; }
int64_t ConstantOp::getBytesRead() { return 0; }
int64_t ConstantOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getElementType() != getType().getElementType())
    return emitOpError("result element type ")
           << getType().getElementType() << " differs from input element type "
           << input.getElementType();
  if (getNumElements(input) != getNumElements(getType()))
    return emitOpError("result shape ")
           << formatShape(getType().getShape()) << " holds "
           << getNumElements(getType()) << " elements but input shape "
           << formatShape(input.getShape()) << " holds "
           << getNumElements(input);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A reshape only relabels row-major elements, so a chain is one reshape.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

int64_t ReshapeOp::getFlops() { return 0; }
int64_t ReshapeOp::getBytesRead() { return 0; }
int64_t ReshapeOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  const int64_t rank = input.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitShapeError(loc, getOperationName(),
                          "permutation has " + Twine(permutation.size()) +
                              " entries but the input has rank " + Twine(rank));
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitShapeError(loc, getOperationName(),
                            "permutation " + formatShape(permutation) +
                                " is not a permutation of 0.." +
                                Twine(rank - 1));
    seen[dim] = true;
    shape.push_back(input.getDimSize(dim));
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  bool updated = false;
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    // Result dim i is the middle tensor's dim perm[i], which is the input's
    // dim inner[perm[i]].
    ArrayRef<int64_t> inner = producer.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t dim : getPermutation())
      composed.push_back(inner[dim]);
    getInputMutable().assign(producer.getInput());
    setPermutation(composed);
    updated = true;
  }
  for (auto [index, dim] : llvm::enumerate(getPermutation()))
    if (dim != static_cast<int64_t>(index))
      return updated ? OpFoldResult(getResult()) : OpFoldResult();
  return getInput();
}

int64_t TransposeOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// broadcast_to
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from input element type "
           << input.getElementType();
  if (input.getRank() > result.getRank())
    return emitOpError("input rank ")
           << input.getRank() << " exceeds result rank " << result.getRank()
           << "; broadcasting only adds dimensions";
  const int64_t offset = result.getRank() - input.getRank();
  for (auto [index, dim] : llvm::enumerate(input.getShape())) {
    int64_t target = result.getDimSize(offset + index);
    if (dim != 1 && dim != target)
      return emitOpError("input dimension ")
             << index << " is " << dim << " but result dimension "
             << offset + index << " is " << target << "; expected 1 or "
             << target;
  }
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

int64_t BroadcastToOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> offsets = adaptor.getOffsets();
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  const int64_t rank = input.getRank();
  for (auto [name, list] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"offsets", offsets},
        {"sizes", sizes},
        {"strides", strides}})
    if (static_cast<int64_t>(list.size()) != rank)
      return emitShapeError(loc, getOperationName(),
                            name + " has " + Twine(list.size()) +
                                " entries but the input has rank " +
                                Twine(rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || sizes[d] < 1 || strides[d] < 1)
      return emitShapeError(
          loc, getOperationName(),
          "dimension " + Twine(d) + ": offset " + Twine(offsets[d]) +
              ", size " + Twine(sizes[d]) + ", stride " + Twine(strides[d]) +
              " (expected offset >= 0, size >= 1, "
              "stride >= 1)");
    int64_t last = offsets[d] + (sizes[d] - 1) * strides[d];
    if (last >= input.getDimSize(d))
      return emitShapeError(loc, getOperationName(),
                            "dimension " + Twine(d) + ": the window ends at " +
                                Twine(last) + " but the input has size " +
                                Twine(input.getDimSize(d)));
  }
  results.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

int64_t SliceOp::getFlops() { return 0; }
int64_t SliceOp::getBytesRead() { return getByteSize(getType()); }

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitShapeError(loc, getOperationName(), "needs at least one input");
  auto first = cast<RankedTensorType>(inputs.front().getType());
  const int64_t axis = adaptor.getAxis();
  if (axis >= first.getRank())
    return emitShapeError(loc, getOperationName(),
                          "axis " + Twine(axis) +
                              " is out of range for inputs of rank " +
                              Twine(first.getRank()));
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    auto type = cast<RankedTensorType>(value.getType());
    const size_t operand = index + 1;
    if (type.getElementType() != first.getElementType())
      return emitShapeError(loc, getOperationName(),
                            "input #" + Twine(operand) +
                                " element type differs from input #0's");
    if (type.getRank() != first.getRank())
      return emitShapeError(loc, getOperationName(),
                            "input #" + Twine(operand) + " has rank " +
                                Twine(type.getRank()) + " but input #0 has " +
                                Twine(first.getRank()));
    for (int64_t d = 0; d < first.getRank(); ++d) {
      if (d == axis)
        continue;
      if (type.getDimSize(d) != first.getDimSize(d))
        return emitShapeError(
            loc, getOperationName(),
            "input #" + Twine(operand) + " dimension " + Twine(d) + " is " +
                Twine(type.getDimSize(d)) + " but input #0's is " +
                Twine(first.getDimSize(d)) + " (only the concatenation axis " +
                Twine(axis) + " may differ)");
    }
    shape[axis] += type.getDimSize(axis);
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

int64_t ConcatOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  const int64_t axis = adaptor.getAxis();
  if (axis >= data.getRank())
    return emitShapeError(loc, getOperationName(),
                          "axis " + Twine(axis) +
                              " is out of range for data of rank " +
                              Twine(data.getRank()));
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

int64_t GatherOp::getFlops() { return 0; }
int64_t GatherOp::getBytesRead() {
  return getByteSize(getIndices().getType()) + getByteSize(getType());
}

} // namespace opfuse::fuse
