//===- Passes.h - fuse dialect transformation passes ------------*- C++ -*-===//
//
// Declares the fuse transformation passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H
#define OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace opfuse::fuse {

#define GEN_PASS_DECL
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"

/// Whether `mode` is a value of fuse-elementwise's gemm-prologues option:
/// auto, always or never.
inline bool isGemmPrologueMode(llvm::StringRef mode) {
  return mode == "auto" || mode == "always" || mode == "never";
}

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H
