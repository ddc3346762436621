//===- RowKernel.h - Ops that form one row-reduction kernel -----*- C++ -*-===//
//
// The structure shared by the fusion pass (which groups only what the
// emitter accepts) and the row-reduction emitter: reductions over the
// trailing dimensions of a (rows x rowLength) iteration space, with
// elementwise ops before them, between them and after them.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_ROWKERNEL_H
#define OPFUSE_DIALECT_FUSE_IR_ROWKERNEL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// reduce_sum, reduce_max or reduce_mean.
bool isReduction(mlir::Operation *op);

/// softmax, layer_norm, rms_norm or attention: emitted as their primitives
/// (fuse-decompose).
bool isComposite(mlir::Operation *op);

/// What fuse-decompose rewrites into primitives: a composite, or a grouped
/// conv2d it computes as windows (decomposesAsWindows). With its
/// keep-attention option an attention the attention kernel computes stays.
bool isDecomposedOp(mlir::Operation *op);

/// The iteration space of a row reduction: `rows` results, each folding
/// `rowLength` elements of the input. The elements of a row are
/// consecutive when the reduced axes are the trailing ones; otherwise the
/// row is strided: row `r` is the `r`-th index of the kept dimensions
/// (row-major), its elements those of the reduced ones, at the offsets
/// `inputShape` and `axes` give.
struct RowShape {
  int64_t rows = 0;
  int64_t rowLength = 0;
  bool strided = false;
  llvm::SmallVector<int64_t> inputShape; // strided rows only
  llvm::SmallVector<int64_t> axes;       // strided rows only
  bool operator==(const RowShape &other) const {
    return rows == other.rows && rowLength == other.rowLength &&
           strided == other.strided && inputShape == other.inputShape &&
           axes == other.axes;
  }
};

/// The row shape of a reduction over a non-empty list of axes; nullopt for
/// any other op.
std::optional<RowShape> getRowShape(mlir::Operation *op);

/// Whether a value of `valueShape`, broadcast to `contextShape` (NumPy
/// rules), reads element `r` at every position of row `r` when the context
/// is split into `rows` rows: the value holds one element per row.
bool broadcastsPerRow(llvm::ArrayRef<int64_t> valueShape,
                      llvm::ArrayRef<int64_t> contextShape, int64_t rows);

/// How a row kernel evaluates a value.
enum class RowValueKind {
  /// One value for the whole kernel (a splat constant).
  Scalar,
  /// rows x rowLength elements, one per position of the iteration space
  /// (any shape with that many elements: reshapes relabel them).
  Element,
  /// One per row: a reduction's result and what is computed from it.
  Row,
  /// A smaller input, or an op on smaller inputs only, read or computed at
  /// the broadcast index of the element-sized value it is combined with.
  Broadcast,
};

struct RowKernelInfo {
  RowShape shape;
  /// The kind of every value the ops use or define.
  llvm::DenseMap<mlir::Value, RowValueKind> kinds;
};

/// Checks that `ops` (one block's ops in block order; values defined by
/// other ops or by block arguments are the kernel's inputs) form one row
/// kernel whose `outputs` are written: at least one row reduction, all over
/// the same row shape (for strided rows, every per-element value has the
/// reductions' input shape); every other op elementwise, a reshape or a splat
/// constant; a per-row value combined with per-element values only through
/// a broadcast over its row; outputs per element or per row. On failure
/// returns nullopt and sets `why` to the first reason.
std::optional<RowKernelInfo>
analyzeRowKernel(llvm::ArrayRef<mlir::Operation *> ops,
                 llvm::ArrayRef<mlir::Value> outputs, std::string &why);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_ROWKERNEL_H
