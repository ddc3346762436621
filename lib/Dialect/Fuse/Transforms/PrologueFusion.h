//===- PrologueFusion.h - Which ops a GEMM computes its A from -*- C++ -*-===//
//
// fuse-elementwise's view of GEMM prologues (GemmKernel.h): the chain of
// elementwise ops a matmul's A operand could be computed from inside the
// GEMM kernel, and what the cost model predicts that saves and costs. The
// GEMM recomputes the chain for every column tile it multiplies A with, so
// it pays only where the kernel the chain would otherwise run in goes
// away (or writes much less) at little recomputation.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_PROLOGUEFUSION_H
#define OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_PROLOGUEFUSION_H

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace opfuse::fuse {

/// A candidate prologue of `matmul`: its ops in block order, and the values
/// it reads (`source`, the one of A's shape, among them).
struct PrologueChain {
  MatmulOp matmul;
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SetVector<mlir::Value> leaves;
  mlir::Value source;
};

/// The longest chain of elementwise ops in `block` that computes the A
/// operand of `matmul` from one value of A's shape and element type and
/// from values that broadcast to it: ops of A's shape, and smaller ones
/// that read only the function's arguments and constants (a norm's scale
/// cast to f32). A smaller value computed from a reduction (a norm's
/// statistic) stays a leaf: its kernel writes it once, unless
/// `statistics` (--gemm-prologues=always) lets the chain take the
/// statistic too where A has at most 64 rows (GemmPrologue::statistics).
/// Ops `taken` (already in a kernel) stay outside. Failure, with `why`,
/// when A is not computed that way.
mlir::FailureOr<PrologueChain>
findPrologueChain(MatmulOp matmul,
                  llvm::function_ref<bool(mlir::Operation *)> taken,
                  bool statistics, std::string &why);

/// The cost model's verdict on computing `chain` inside its GEMM.
struct PrologueVerdict {
  bool pays = false;
  /// Predicted seconds the kernels outside stop spending (the chain's
  /// result no longer written, or the chain's whole kernel gone), shared
  /// among the GEMMs that read A, and seconds the GEMM adds (the chain
  /// recomputed per column tile, its inputs read instead of A).
  double savedSeconds = 0, addedSeconds = 0;
  /// Column tiles of the GEMM's predicted tiling.
  int64_t columnTiles = 1;
  /// Why it does not pay, or what it saves, for --fuse-explain.
  std::string reason;
};

PrologueVerdict judgePrologue(const PrologueChain &chain,
                              const opfuse::CostModel &model);

} // namespace opfuse::fuse

#endif // OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_PROLOGUEFUSION_H
