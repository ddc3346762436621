//===- Passes.h - Cost analysis passes --------------------------*- C++ -*-===//
//
// Declares the analysis passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_PASSES_H
#define OPFUSE_ANALYSIS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace opfuse {

#define GEN_PASS_DECL
#include "opfuse/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "opfuse/Analysis/Passes.h.inc"

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_PASSES_H
