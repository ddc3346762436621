//===- FuseShapes.h - Shape rules shared by fuse ops ------------*- C++ -*-===//
//
// Element counts, byte sizes, NumPy broadcasting and reduction shapes: the
// rules several op families share, each reporting a precise error when a
// location is given (verification) and staying silent otherwise (builders).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSESHAPES_H
#define OPFUSE_DIALECT_FUSE_IR_FUSESHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace opfuse::fuse {

/// Number of elements of a static shape (1 for rank 0).
int64_t getNumElements(mlir::ShapedType type);
int64_t getNumElements(mlir::Type type);

/// Bytes of one element as stored in device memory (i1 takes one byte).
int64_t getElementByteSize(mlir::Type elementType);

/// Bytes of a statically shaped tensor.
int64_t getByteSize(mlir::Type type);

/// Emits "'<opName>' op <message>" at `loc` when it is set; always fails.
/// Shape rules run from both verifiers (location set) and builders (unset).
mlir::LogicalResult emitShapeError(std::optional<mlir::Location> loc,
                                   llvm::StringRef opName,
                                   const llvm::Twine &message);

/// Whether `shape` broadcasts to `full` alone (NumPy rules, aligned right):
/// every dimension is 1 or `full`'s.
bool broadcastsTo(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> full);

/// NumPy broadcast of `shapes`; `names` label each shape in the error.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(std::optional<mlir::Location> loc, llvm::StringRef opName,
                llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                llvm::ArrayRef<llvm::StringRef> names);

/// Result type of a broadcasting elementwise op: operands broadcast, all of
/// the same element type; the result has `resultElementType` or theirs.
mlir::LogicalResult
inferBroadcastResult(std::optional<mlir::Location> loc, llvm::StringRef opName,
                     mlir::ValueRange operands,
                     llvm::ArrayRef<llvm::StringRef> names,
                     std::optional<mlir::Type> resultElementType,
                     llvm::SmallVectorImpl<mlir::Type> &results);

/// Result type of a reduction of `input` over `axes`.
mlir::LogicalResult
inferReduceResult(std::optional<mlir::Location> loc, llvm::StringRef opName,
                  mlir::Type input, llvm::ArrayRef<int64_t> axes, bool keepdims,
                  llvm::SmallVectorImpl<mlir::Type> &results);

/// "[1, 2, 3]" for error messages.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// "'fuse.add' at 12:8" (line and column when the location has them), to
/// name an op in a remark or error about another.
std::string describeOp(mlir::Operation *op);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_FUSESHAPES_H
