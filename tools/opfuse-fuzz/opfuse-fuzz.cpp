//===- opfuse-fuzz.cpp - libFuzzer target over opt-fuse's front half ------===//
//
// Each input is a model as opt-fuse reads it: the same checks, parse and
// verification, then fusion, memory planning and kernel emission to GPU
// and LLVM dialect (with OPFUSE_FUZZ_PTX=1 in the environment, on to PTX).
// Invalid input must end in a diagnostic; a crash, a sanitizer report, or a
// diagnostic that says "internal error" (a compiler bug: exit 8 in
// opt-fuse) is a finding. Built by `make check-asan` (clang-22, libFuzzer);
// run as `build-asan/bin/opfuse-fuzz test/fuzz/corpus`.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"
#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/InitAll.h"
#include "opfuse/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const bool toPtx = [] {
    const char *value = std::getenv("OPFUSE_FUZZ_PTX");
    return value && value[0] == '1';
  }();
  DialectRegistry registry;
  opfuse::registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.disableMultithreading();
  // Diagnostics are the expected answer to bad input; only compiler bugs
  // are findings.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
        opfuse::isInternalError(diagnostic.str())) {
      llvm::errs() << "opfuse-fuzz: internal error: " << diagnostic.str()
                   << "\n";
      std::abort();
    }
    return success();
  });
  llvm::SourceMgr sourceMgr;
  opfuse::ExitCode exitCode = opfuse::ExitSuccess;
  OwningOpRef<ModuleOp> module = opfuse::loadModel(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input"),
      context, sourceMgr, exitCode);
  if (!module)
    return 0;
  opfuse::CompileOptions options;
  options.binary = toPtx;
  PassManager pm(&context);
  opfuse::buildFusionPasses(pm, options);
  opfuse::buildKernelEmissionPasses(pm, options);
  (void)pm.run(*module);
  return 0;
}
