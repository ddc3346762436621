//===- GraphOutput.cpp - --emit=dot and --emit=graph ----------------------===//
//
// The fused graph as DOT, and as SVG through Graphviz's `dot` where it is
// installed (found on PATH). Without it --emit=graph writes the DOT and a
// note says why, so a pipeline that wants a picture still gets its source.
//
//===----------------------------------------------------------------------===//

#include "Output.h"

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Report/Report.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace opfuse {

int writeGraph(const DriverOptions &options, EmitKind emit,
               mlir::func::FuncOp func, const GraphAnalysis &after,
               const FusionRefusals &refusals) {
  std::string dot;
  {
    llvm::raw_string_ostream os(dot);
    writeFusedGraphDot(func, after, refusals, os);
  }
  llvm::ErrorOr<std::string> graphviz = llvm::sys::findProgramByName("dot");
  if (emit == EmitKind::Dot || !graphviz) {
    if (emit == EmitKind::Graph)
      llvm::errs() << "opt-fuse: note: Graphviz's 'dot' is not on PATH; "
                      "wrote the graph as DOT (install graphviz, or render "
                      "it with 'dot -Tsvg')\n";
    return writeOutput(options, [&](llvm::raw_ostream &os) { os << dot; });
  }
  // dot reads the graph from a file and writes the SVG to another.
  llvm::SmallString<128> input, output;
  if (llvm::sys::fs::createTemporaryFile("opfuse-graph", "dot", input) ||
      llvm::sys::fs::createTemporaryFile("opfuse-graph", "svg", output)) {
    llvm::errs() << "opt-fuse: error: cannot create a temporary file for "
                    "Graphviz\n";
    return ExitIO;
  }
  auto cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(input);
    llvm::sys::fs::remove(output);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(input, ec);
    if (ec) {
      llvm::errs() << "opt-fuse: error: " << input << ": " << ec.message()
                   << "\n";
      return ExitIO;
    }
    file << dot;
  }
  std::string error;
  const int status = llvm::sys::ExecuteAndWait(
      *graphviz, {*graphviz, "-Tsvg", input.str(), "-o", output.str()},
      std::nullopt, {}, /*SecondsToWait=*/60, /*MemoryLimit=*/0, &error);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> svg =
      llvm::MemoryBuffer::getFile(output);
  if (status != 0 || !svg) {
    llvm::errs() << "opt-fuse: error: Graphviz's dot failed"
                 << (error.empty() ? "" : ": " + error)
                 << "; --emit=dot writes the graph without it\n";
    return ExitIO;
  }
  return writeOutput(options,
                     [&](llvm::raw_ostream &os) { os << (*svg)->getBuffer(); });
}

} // namespace opfuse
