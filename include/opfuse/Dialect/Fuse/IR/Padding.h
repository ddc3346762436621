//===- Padding.h - A tensor padded along one axis ---------------*- C++ -*-===//
//
// Padding is data movement the dialect already has: a fuse.concat of the
// tensor between two blocks of the fill, which fusion reads in place. The
// ONNX importer's Pad and pools and fuse-decompose's grouped convolutions
// all pad this way.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_PADDING_H
#define OPFUSE_DIALECT_FUSE_IR_PADDING_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace opfuse::fuse {

/// `x` with `before` and `after` elements of fill along `axis`: a concat
/// of x between the blocks `makeBlock` builds (given each block's type:
/// x's, `before` or `after` long on `axis`). `x` itself when both are 0.
mlir::Value buildPadAlong(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t axis,
    int64_t before, int64_t after,
    llvm::function_ref<mlir::Value(mlir::RankedTensorType)> makeBlock);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_PADDING_H
