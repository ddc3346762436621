//===- Output.h - Writing opt-fuse's outputs --------------------*- C++ -*-===//

#ifndef OPFUSE_LIB_DRIVER_OUTPUT_H
#define OPFUSE_LIB_DRIVER_OUTPUT_H

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Driver/Driver.h"
#include "opfuse/Report/Report.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace opfuse {

/// Opens the output path, lets `write` fill it, and keeps it only when
/// every byte reached it; ExitIO with the reason otherwise.
int writeOutput(const DriverOptions &options,
                llvm::function_ref<void(llvm::raw_ostream &)> write);

/// --emit=dot or --emit=graph of the fused `func`, its kernels analysed in
/// `after` (GraphOutput.cpp).
int writeGraph(const DriverOptions &options, EmitKind emit,
               mlir::func::FuncOp func, const GraphAnalysis &after,
               const FusionRefusals &refusals);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_OUTPUT_H
