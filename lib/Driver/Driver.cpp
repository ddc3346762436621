//===- Driver.cpp - What opt-fuse does with its options -------------------===//
//
// Loads the model, produces the requested output, and maps every failure to
// its exit code.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "opfuse/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace opfuse {

std::optional<EmitKind> parseEmitKind(llvm::StringRef value) {
  return llvm::StringSwitch<std::optional<EmitKind>>(value)
      .Case("mlir", EmitKind::Mlir)
      .Default(std::nullopt);
}

const char *listEmitKinds() { return "mlir"; }

namespace {
/// Writes `module` as `options.emit` says to the output path.
int writeOutput(ModuleOp module, const DriverOptions &options) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(options.outputPath, &error);
  if (!output) {
    llvm::errs() << "opt-fuse: error: " << error << "\n";
    return ExitIO;
  }
  switch (options.emit) {
  case EmitKind::Mlir:
    module.print(output->os());
    output->os() << "\n";
    break;
  }
  output->os().flush();
  if (std::error_code ec = output->os().error()) {
    output->os().clear_error();
    llvm::errs() << "opt-fuse: error: cannot write '" << options.outputPath
                 << "': " << ec.message() << "\n";
    return ExitIO;
  }
  output->keep();
  return ExitSuccess;
}
} // namespace

int runDriver(const DriverOptions &options) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  ExitCode exitCode = ExitSuccess;
  OwningOpRef<ModuleOp> module =
      loadModel(options.inputPath, context, sourceMgr, exitCode);
  if (!module)
    return exitCode;
  return writeOutput(*module, options);
}

} // namespace opfuse
