//===- opfuse-opt.cpp - mlir-opt with the opfuse dialect and passes -------===//
//
// MlirOptMain over the fuse dialect, opfuse's passes and the upstream pieces
// of the GPU path: the tool lit tests and researchers drive passes with.
//
//===----------------------------------------------------------------------===//

#include "opfuse/InitAll.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  opfuse::registerAllDialects(registry);
  opfuse::registerAllPasses();
  // Read before MlirOptMain, which leaves no occurrences to look up after.
  const bool statistics = llvm::any_of(
      llvm::ArrayRef<char *>(argv, argc), [](llvm::StringRef argument) {
        argument = argument.ltrim('-');
        return argument == "mlir-pass-statistics" ||
               argument == "mlir-pass-statistics=true" ||
               argument == "mlir-pass-statistics=1";
      });
  mlir::LogicalResult result = mlir::MlirOptMain(
      argc, argv,
      "opfuse-opt: runs opfuse's and MLIR's passes on IR, as mlir-opt does\n"
      "(opt-fuse is the compiler driver: a model in, PTX,\n"
      "plans, reports and GPU runs out)\n",
      registry);
  // opfuse's counts, after MLIR's tables (empty with a release LLVM).
  if (statistics)
    opfuse::printPassStatistics(llvm::errs());
  return mlir::asMainReturnCode(result);
}
