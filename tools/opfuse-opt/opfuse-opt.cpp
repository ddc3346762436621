//===- opfuse-opt.cpp - mlir-opt with the opfuse dialect and passes -------===//
//
// MlirOptMain over the fuse dialect, opfuse's passes and the upstream pieces
// of the GPU path: the tool lit tests and researchers drive passes with.
//
//===----------------------------------------------------------------------===//

#include "opfuse/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  opfuse::registerAllDialects(registry);
  opfuse::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "opfuse-opt: runs opfuse's and MLIR's passes on IR, as mlir-opt does\n"
      "(opt-fuse is the compiler driver: a model in, PTX,\n"
      "plans, reports and GPU runs out)\n",
      registry));
}
