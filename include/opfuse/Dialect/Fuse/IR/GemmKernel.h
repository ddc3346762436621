//===- GemmKernel.h - Ops that form one GEMM kernel -------------*- C++ -*-===//
//
// The structure shared by the fusion pass (which groups only what the
// emitter accepts) and the matmul emitter: one fuse.matmul, reading its
// operands from memory, with elementwise ops over its output shape applied
// to the accumulators before the one store (the epilogue).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
#define OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// An op the GEMM emitter computes on tensor cores (fuse.matmul).
bool isContraction(mlir::Operation *op);

/// A matmul seen as a batch of GEMMs: `batch` independent products of an
/// MxK and a KxN matrix.
struct GemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

/// The GEMM shape of `matmul`.
GemmShape getGemmShape(MatmulOp matmul);

/// Whether `ops` (in block order) form one GEMM kernel: exactly one
/// contraction, whose operands come from outside `ops` (no prologue), and
/// otherwise only elementwise ops and splat constants whose results have
/// the contraction's output shape. Returns the contraction, or nullopt with
/// the reason in `why`.
std::optional<MatmulOp> analyzeGemmKernel(llvm::ArrayRef<mlir::Operation *> ops,
                                          std::string &why);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_GEMMKERNEL_H
