//===- opt-fuse.cpp - The opfuse compiler driver --------------------------===//
//
// Parses the command line into DriverOptions and hands over to the driver
// library; usage errors exit with ExitUsage, never with LLVM's default 1.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("opt-fuse options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.mlir | ->"),
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<std::string> emit("emit", cl::desc("What to write: mlir (the verified "
                                           "model)"),
                          cl::value_desc("kind"), cl::init("mlir"),
                          cl::cat(category));

const char *overview =
    "opt-fuse: the opfuse operator-fusion compiler\n\n"
    "Reads a model in the fuse dialect (a file, or - for standard input),\n"
    "verifies it and writes the requested output.\n\n"
    "  opt-fuse model.mlir                 print the verified model\n"
    "  opt-fuse model.mlir -o out.mlir     write it to a file\n"
    "  cat model.mlir | opt-fuse -         read standard input\n";
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "opfuse opt-fuse 0.1\n"; });
  std::string help = std::string(overview) + "\n" + opfuse::describeExitCodes();
  std::string usageErrors;
  llvm::raw_string_ostream errorStream(usageErrors);
  if (!cl::ParseCommandLineOptions(argc, argv, help, &errorStream)) {
    llvm::errs() << errorStream.str();
    return opfuse::ExitUsage;
  }
  if (inputPath.empty()) {
    llvm::errs() << "opt-fuse: error: no input file (give a path, or - for "
                    "standard input; see --help)\n";
    return opfuse::ExitUsage;
  }
  std::optional<opfuse::EmitKind> kind = opfuse::parseEmitKind(emit);
  if (!kind) {
    llvm::errs() << "opt-fuse: error: unknown --emit value '" << emit
                 << "' (expected one of: " << opfuse::listEmitKinds() << ")\n";
    return opfuse::ExitUsage;
  }

  opfuse::DriverOptions options;
  options.inputPath = inputPath;
  options.outputPath = outputPath;
  options.emit = *kind;
  return opfuse::runDriver(options);
}
