//===- StridedView.h - View chains as one strided layout --------*- C++ -*-===//
//
// A chain of transposes, slices and reshapes read by a GEMM is one strided
// layout over the buffer it starts from: element (i0, ..., in-1) of the
// view is element offset + sum(ij * strides[j]) of that buffer. A GEMM
// reads its operand through the layout instead of a copy.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_STRIDEDVIEW_H
#define OPFUSE_DIALECT_FUSE_IR_STRIDEDVIEW_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

struct StridedView {
  /// The value the chain starts from (outside the chain), row-major.
  mlir::Value base;
  /// The first element, in elements of `base`.
  int64_t offset = 0;
  /// Per dimension of the viewed value, in elements of `base`.
  llvm::SmallVector<int64_t> strides;
  /// A store layout through a slice writes only the box [lower, upper) of
  /// `base`'s index space (its `offset` is then negative: the box's first
  /// element goes to element 0). Empty when every element is written.
  llvm::SmallVector<int64_t> lower, upper;
};

/// The strided layout in which `value` reads `base` when `value` is defined
/// by transpose, slice and reshape ops for which `follow` holds (the chain
/// stops at the first op it does not hold for, or at a block argument).
/// Nullopt, with the reason in `why`, when a reshape merges dimensions that
/// are not contiguous in the layout.
std::optional<StridedView>
getStridedView(mlir::Value value,
               llvm::function_ref<bool(mlir::Operation *)> follow,
               std::string &why);

/// The strided layout in which a kernel writes `base` so that `value`, the
/// end of a chain of transposes and reshapes from `base` for which `follow`
/// holds, is row-major: element (i0, ..., in-1) of `base` goes to element
/// sum(ij * strides[j]) of `value`'s buffer. The merge of attention heads
/// ([B, H, S, D] -> [B, S, H, D] -> [B, S, H*D]) is such a chain, and so is
/// a slice with unit steps applied to `base` itself (Q, K or V out of a QKV
/// projection): the kernel writes only the elements inside the slice's box.
/// Nullopt, with the reason in `why`, for a slice with steps or after other
/// views, or a reshape that splits a dimension the layout does not hold
/// contiguously.
std::optional<StridedView>
getStoreLayout(mlir::Value value,
               llvm::function_ref<bool(mlir::Operation *)> follow,
               std::string &why);

/// transpose, slice or reshape: the views a GEMM can read its operands
/// through.
bool isStridedViewOp(mlir::Operation *op);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_STRIDEDVIEW_H
