//===- FuseShapes.cpp - Shape rules shared by fuse ops --------------------===//
//
// NumPy broadcasting, reduction shapes and byte sizes. Messages name the
// operand and dimension at fault and give expected against actual values.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace opfuse::fuse {

int64_t getNumElements(ShapedType type) {
  int64_t count = 1;
  for (int64_t dim : type.getShape())
    count *= dim;
  return count;
}

int64_t getNumElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() ? getNumElements(shaped) : 0;
}

int64_t getElementByteSize(Type elementType) {
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t getByteSize(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrFloat())
    return 0;
  return getNumElements(shaped) * getElementByteSize(shaped.getElementType());
}

LogicalResult emitShapeError(std::optional<Location> loc, StringRef opName,
                             const Twine &message) {
  if (loc)
    emitError(*loc) << "'" << opName << "' op " << message;
  return failure();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getLine() << ":" << loc.getColumn();
  return text;
}

bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> full) {
  if (shape.size() > full.size())
    return false;
  const size_t lead = full.size() - shape.size();
  for (auto [d, size] : llvm::enumerate(shape))
    if (size != 1 && size != full[lead + d])
      return false;
  return true;
}

FailureOr<SmallVector<int64_t>>
broadcastShapes(std::optional<Location> loc, StringRef opName,
                ArrayRef<ArrayRef<int64_t>> shapes, ArrayRef<StringRef> names) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  // For each result dimension, the operand that set it (to name it in errors).
  SmallVector<int> setBy(rank, -1);
  for (auto [index, shape] : llvm::enumerate(shapes)) {
    size_t offset = rank - shape.size();
    for (auto [dimIndex, dim] : llvm::enumerate(shape)) {
      size_t r = offset + dimIndex;
      if (dim == 1 || dim == result[r])
        continue;
      if (result[r] == 1) {
        result[r] = dim;
        setBy[r] = index;
        continue;
      }
      const int other = setBy[r];
      size_t otherDim = r - (rank - shapes[other].size());
      if (failed(emitShapeError(
              loc, opName,
              "operands are not broadcast-compatible: " + names[other] +
                  " dimension " + Twine(otherDim) + " is " + Twine(result[r]) +
                  " but " + names[index] + " dimension " + Twine(dimIndex) +
                  " is " + Twine(dim) + " (shapes " +
                  formatShape(shapes[other]) + " and " + formatShape(shape) +
                  ")")))
        return failure();
    }
  }
  return result;
}

LogicalResult inferBroadcastResult(std::optional<Location> loc,
                                   StringRef opName, ValueRange operands,
                                   ArrayRef<StringRef> names,
                                   std::optional<Type> resultElementType,
                                   SmallVectorImpl<Type> &results) {
  SmallVector<ArrayRef<int64_t>> shapes;
  Type elementType;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return emitShapeError(loc, opName,
                            names[index] + " must be a statically shaped "
                                           "tensor");
    if (!elementType) {
      elementType = type.getElementType();
    } else if (type.getElementType() != elementType) {
      std::string expected, got;
      llvm::raw_string_ostream(expected) << elementType;
      llvm::raw_string_ostream(got) << type.getElementType();
      return emitShapeError(loc, opName,
                            "operand element types differ: " + names[0] +
                                " is " + expected + " but " + names[index] +
                                " is " + got);
    }
    shapes.push_back(type.getShape());
  }
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(loc, opName, shapes, names);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(
      *shape, resultElementType ? *resultElementType : elementType));
  return success();
}

LogicalResult inferReduceResult(std::optional<Location> loc, StringRef opName,
                                Type input, ArrayRef<int64_t> axes,
                                bool keepdims, SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(input);
  if (!type || !type.hasStaticShape())
    return emitShapeError(loc, opName,
                          "input must be a statically shaped tensor");
  int64_t rank = type.getRank();
  if (axes.empty())
    return emitShapeError(loc, opName, "axes must not be empty");
  for (auto [index, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return emitShapeError(loc, opName,
                            "axis " + Twine(axis) +
                                " is out of range for an input of rank " +
                                Twine(rank));
    if (index > 0 && axis <= axes[index - 1])
      return emitShapeError(loc, opName,
                            "axes must be strictly increasing, got " +
                                formatShape(axes));
  }
  SmallVector<int64_t> shape;
  for (auto [dimIndex, dim] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dimIndex)))
      shape.push_back(dim);
    else if (keepdims)
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

} // namespace opfuse::fuse
