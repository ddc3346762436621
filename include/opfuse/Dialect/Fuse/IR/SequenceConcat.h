//===- SequenceConcat.h - K or V joined along the sequence --------*- C++
//-*-===//
//
// A decode step appends its new key and value rows to the cache with a
// fuse.concat along the sequence axis, and attention reads the result
// once. The fused attention kernel reads the concat's inputs where they
// lie instead, piece by piece, so the joined cache is never written.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_SEQUENCECONCAT_H
#define OPFUSE_DIALECT_FUSE_IR_SEQUENCECONCAT_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// One input of a sequence concat as the kernel reads it: a strided view
/// (in the operand's index space, its rows counted from `firstRow`) of a
/// value computed outside the kernel.
struct SequencePiece {
  /// The concat's input this piece is.
  mlir::Value input;
  StridedView view;
  int64_t firstRow = 0, rows = 0;
};

/// The most pieces the attention kernel reads an operand from.
constexpr int64_t kMaxSequencePieces = 4;

/// Whether `operand` (K or V of an attention, [..., S, D]) is a fuse.concat
/// along S (directly, or through views that leave its layout as it is)
/// inside the kernel whose ops `member` accepts.
ConcatOp getSequenceConcat(mlir::Value operand,
                           llvm::function_ref<bool(mlir::Operation *)> member);

/// The pieces the kernel reads `concat`'s result from: each non-empty input,
/// through the views inside the kernel that produce it, of a value computed
/// outside. Nullopt, with the reason in `why`, where an input is computed
/// inside the kernel, its head dimension is not contiguous, or there are
/// more than kMaxSequencePieces.
std::optional<llvm::SmallVector<SequencePiece>>
getSequencePieces(ConcatOp concat,
                  llvm::function_ref<bool(mlir::Operation *)> member,
                  std::string &why);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_SEQUENCECONCAT_H
