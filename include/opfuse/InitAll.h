//===- InitAll.h - Register opfuse and the upstream pieces ------*- C++ -*-===//
//
// One place that lists what opfuse-opt and opt-fuse load: the fuse dialect,
// func, and the dialects, ConvertToLLVM interfaces and translations of the
// GPU path (without the ConvertToLLVM interfaces convert-gpu-to-nvvm
// "succeeds" and leaves ops behind).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_INITALL_H
#define OPFUSE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace opfuse {

/// The fuse dialect, func and the upstream dialects of the GPU path with
/// their ConvertToLLVM interfaces and LLVM IR translations.
void registerAllDialects(mlir::DialectRegistry &registry);

/// opfuse's passes and the upstream passes the GPU path runs (for
/// opfuse-opt and lit).
void registerAllPasses();

} // namespace opfuse

#endif // OPFUSE_INITALL_H
