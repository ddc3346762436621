//===- GemmKernel.h - Ops that form one GEMM kernel -------------*- C++ -*-===//
//
// The structure shared by the fusion pass (which groups only what the
// emitter accepts) and the GEMM emitter: one fuse.matmul or fuse.conv2d
// (an implicit GEMM), reading its operands from memory (a matmul's through
// strided views), with elementwise ops over its output shape applied to the
// accumulators before the one store (the epilogue), which may write a
// result through transposes and reshapes (a matmul's store layout).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
#define OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// An op the GEMM emitter computes on tensor cores: fuse.matmul, or
/// fuse.conv2d as an implicit GEMM.
bool isContraction(mlir::Operation *op);

/// A contraction seen as a batch of GEMMs: `batch` independent products of
/// an MxK and a KxN matrix. A conv2d is one GEMM with M = N*OH*OW output
/// pixels, N = F filters and K = KH*KW*C/groups.
struct GemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

/// The GEMM shape of the contraction `op`.
GemmShape getGemmShape(mlir::Operation *op);

/// Whether `ops` (in block order) form one GEMM kernel: exactly one
/// contraction, whose operands come from outside `ops` (no prologue) or,
/// for a matmul, through transposes, slices and reshapes inside `ops` that
/// form a strided layout with one of its two minor dimensions contiguous
/// (StridedView.h), and otherwise only elementwise ops and splat constants
/// whose results have the contraction's output shape; transposes and
/// reshapes after them, for a matmul, when the chain keeps the output's
/// columns consecutive (getStoreLayout in StridedView.h). Returns the
/// contraction, or null with the reason in `why`.
mlir::Operation *analyzeGemmKernel(llvm::ArrayRef<mlir::Operation *> ops,
                                   std::string &why);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
