//===- GemmKernel.h - Ops that form one GEMM kernel -------------*- C++ -*-===//
//
// The structure shared by the fusion pass (which groups only what the
// emitter accepts) and the GEMM and attention emitters: one fuse.matmul,
// fuse.conv2d (an implicit GEMM) or fuse.attention (two GEMMs around an
// online softmax), reading its operands from memory (a matmul's through
// strided views, or its A operand through elementwise ops applied to each
// K slice in shared memory: the prologue), with elementwise ops over its
// output shape applied to the accumulators before the one store (the
// epilogue), which may write a result through transposes and reshapes (a
// matmul's store layout).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
#define OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// An op a kernel computes on tensor cores from operands it reads from
/// memory, one per kernel, with elementwise ops on its output as the
/// epilogue: fuse.matmul, fuse.conv2d and fuse.attention.
bool isContraction(mlir::Operation *op);

/// A contraction the GEMM emitter computes: fuse.matmul, or fuse.conv2d as
/// an implicit GEMM.
bool isGemmContraction(mlir::Operation *op);

/// The most products a grouped convolution's output element may sum
/// (KH x KW x input channels per group) for fuse-decompose to write it as
/// the strided windows of its input; beyond it the windows' kernel would be
/// bound by its arithmetic and its many loads rather than by memory, and
/// the GEMM kernels run it, one group a batch element.
constexpr int64_t kMaxWindowTerms = 64;

/// Whether fuse-decompose writes `conv` as windows: it has groups, no
/// input dilation, and at most kMaxWindowTerms products an output (a GEMM
/// per group would fill few of a tile's columns).
bool decomposesAsWindows(Conv2DOp conv);

/// A contraction seen as a batch of GEMMs: `batch` independent products of
/// an MxK and a KxN matrix. A conv2d is one GEMM per group (batch =
/// groups) with M = N*OH*OW output pixels, N = F/groups filters and
/// K = KH*KW*C/groups.
struct GemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

/// Whether the matmul `op` is one GEMM over its batch's rows stacked: its
/// B does not vary over the batch (a weight; rank 2 or batch dimensions of
/// size 1) and its A, not transposed, has the output's rank, so A's and
/// the output's rows follow one another across the batch when they are
/// row-major. A decode step's [tokens, 1, K] x [K, N] is then one GEMM of
/// `tokens` rows, not `tokens` GEMMs of one row that each read the weight.
bool foldsBatchIntoRows(MatmulOp op);

/// The GEMM shape of the contraction `op`; for an attention, the shape of
/// its second product (M = Sq query rows, N = Dv, K = D, batch = B * H);
/// for a matmul that foldsBatchIntoRows, batch 1 and M the batch's rows.
GemmShape getGemmShape(mlir::Operation *op);

/// The output tiles of `shape` under `tiling`, ragged edges as whole
/// tiles: batch x ceil(M / BM) x ceil(N / BN).
int64_t countOutputTiles(const GemmShape &shape, const MatmulTiling &tiling);

/// Whether the tile model also offers a 16-bit GEMM of `shape` skinny
/// tiles, one tile row of M rounded up to 16: at most 64 rows (a decode
/// step, a few tokens against a weight) and a K of at least 256 (a shorter
/// K streams too little to be worth spreading over the SMs).
bool isSkinnyGemm(const GemmShape &shape);

/// The rows of the shortest tile the tile model offers for `shape`: M
/// rounded up to 16 for a skinny 16-bit GEMM (isSkinnyGemm), else 64 (the
/// shortest wgmma and mma.sync tiles, f32 included). What a GEMM of few rows
/// computes in padding however the tiles are picked.
int64_t shortestTileRows(const GemmShape &shape, bool sixteenBit);

/// The prologue of a matmul kernel: the elementwise ops (in block order)
/// that compute its A operand from `source`, the one input of A's shape and
/// element type (which the kernel copies K slice by K slice, row-major),
/// and from inputs that broadcast to A's shape (a norm's per-row statistic,
/// its per-column scale), read at each element's broadcast index.
///
/// The per-row statistics themselves may be part of it (a decode step's
/// RMSNorm or layer norm before its projection): reductions of values
/// computed from `source` over A's last axis (keepdims), and elementwise
/// ops on their results and constants. The kernel then reduces each of its
/// rows over the whole of K before its main loop (GemmPrologueStatistics),
/// so the norm needs no kernel of its own.
struct GemmPrologue {
  mlir::Value source;
  llvm::SmallVector<mlir::Operation *> ops;
  /// The reductions among `ops`, in block order.
  llvm::SmallVector<mlir::Operation *> statistics;
};

/// Whether `op`, a member of a prologue with statistics, computes a per-row
/// value (a statistic, or an op on statistics and constants) rather than
/// one per element of A.
bool isPerRowPrologueOp(mlir::Operation *op, mlir::Value lhs);

/// The prologue of `contraction` among `members`: empty ops when its A
/// operand is not computed inside them; nullopt with the reason in `why`
/// when it is, but not as a prologue the GEMM kernel runs.
std::optional<GemmPrologue>
getGemmPrologue(mlir::Operation *contraction,
                llvm::function_ref<bool(mlir::Operation *)> isMember,
                std::string &why);

/// Whether `ops` (in block order) form one GEMM kernel: exactly one
/// contraction, whose operands come from outside `ops` or, for a matmul,
/// through transposes, slices and reshapes inside `ops` that form a
/// strided layout with one of its two minor dimensions contiguous
/// (StridedView.h; an attention's q, k and v with the last one contiguous,
/// and its mask from memory as it is), or, for a matmul's A, through a prologue
/// (getGemmPrologue), and otherwise only elementwise ops and splat constants
/// whose results have the contraction's output shape; transposes and
/// reshapes after them, for a matmul or an attention, when the chain keeps the
/// output's columns consecutive (getStoreLayout in StridedView.h). Returns the
/// contraction, or null with the reason in `why`.
mlir::Operation *analyzeGemmKernel(llvm::ArrayRef<mlir::Operation *> ops,
                                   std::string &why);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
