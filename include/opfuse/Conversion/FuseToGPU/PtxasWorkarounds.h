//===- PtxasWorkarounds.h - LLVM IR that ptxas compiles right ---*- C++ -*-===//
//
// Rewrites of the optimised LLVM IR of a kernel module, applied just before
// the NVPTX backend, that keep ptxas away from code it miscompiles.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_PTXASWORKAROUNDS_H
#define OPFUSE_CONVERSION_FUSETOGPU_PTXASWORKAROUNDS_H

namespace llvm {
class Module;
} // namespace llvm

namespace opfuse {

/// Replaces every `llvm.smax`/`llvm.smin` on integers (or vectors of them)
/// of 32 bits or fewer by `llvm.umax`/`llvm.umin` on operands with the sign
/// bit flipped, flipping the result back: the same value for every input,
/// and code in which ptxas cannot form a signed three-input VIMNMX3, whose
/// folded operand negation CUDA 13.0's ptxas drops (see
/// fuse-serialize-kernels). Returns how many calls were rewritten.
unsigned rewriteSignedMinMaxForPtxas(llvm::Module &module);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_PTXASWORKAROUNDS_H
