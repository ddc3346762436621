//===- Passes.h - fuse to GPU conversion ------------------------*- C++ -*-===//
//
// Declares convert-fuse-to-gpu (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_PASSES_H
#define OPFUSE_CONVERSION_FUSETOGPU_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace opfuse {

#define GEN_PASS_DECL
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "opfuse/Conversion/FuseToGPU/Passes.h.inc"

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_PASSES_H
