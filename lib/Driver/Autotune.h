//===- Autotune.h - --autotune: measured GEMM tilings -----------*- C++ -*-===//

#ifndef OPFUSE_LIB_DRIVER_AUTOTUNE_H
#define OPFUSE_LIB_DRIVER_AUTOTUNE_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Driver/Driver.h"
#include "opfuse/Pipeline/Pipeline.h"

namespace opfuse {

/// --autotune: gives every GEMM kernel of `module` (fused, not yet emitted)
/// a fuse.matmul_tiling attribute: the cached tiling for its signature, or
/// the fastest of the tile model's best --autotune-candidates, timed on the
/// GPU through `pipeline`'s emission passes and then cached. Returns the
/// exit code; prints one line per GEMM kernel to stderr.
int autotuneMatmulTilings(const DriverOptions &options, mlir::ModuleOp module,
                          const CompileOptions &compile,
                          const GpuTarget &target);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_AUTOTUNE_H
