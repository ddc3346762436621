//===- MlirOptions.cpp - MLIR's command-line options in the driver --------===//
//
// A researcher debugging a pass reaches for mlir-opt's flags: IR after
// every pass, pass timing and statistics, locations in printed IR. opt-fuse
// registers the same options and applies them to each pass manager it runs
// (decomposition, fusion, kernel emission, and the checks').
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

namespace opfuse {

namespace {
/// Whether a tool registered the options: applying them otherwise fails.
bool registered = false;
} // namespace

void registerMlirCommandLineOptions() {
  registered = true;
  mlir::registerMLIRContextCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
}

mlir::LogicalResult applyMlirCommandLineOptions(mlir::PassManager &pm) {
  if (!registered)
    return mlir::success();
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  return mlir::success();
}

} // namespace opfuse
