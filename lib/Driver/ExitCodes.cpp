//===- ExitCodes.cpp - Exit codes of the opfuse tools ---------------------===//

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/Spmd.h"

#include "llvm/Support/raw_ostream.h"

int opfuse::reportRunError(llvm::StringRef tool, llvm::Error error) {
  const int code = exitCodeOf(classifyRunFailure(error));
  llvm::errs() << tool << ": error: " << llvm::toString(std::move(error))
               << "\n";
  return code;
}

int opfuse::reportDeviceFailures(llvm::StringRef tool,
                                 const std::vector<DeviceRun> &runs) {
  int exitCode = ExitSuccess;
  for (size_t device = 0; device < runs.size(); ++device) {
    if (runs[device].result)
      continue;
    llvm::errs() << tool << ": error: GPU " << device << ": "
                 << runs[device].error << "\n";
    if (exitCode == ExitSuccess)
      exitCode = exitCodeOf(runs[device].failure);
  }
  return exitCode;
}

int opfuse::exitCodeOf(RunFailure failure) {
  switch (failure) {
  case RunFailure::UnsupportedPlan:
    return ExitUnsupported;
  case RunFailure::CollectivesUnavailable:
    return ExitNoCollectives;
  case RunFailure::Gpu:
    break;
  }
  return ExitGpuError;
}

const char *opfuse::describeExitCodes() {
  return "EXIT CODES:\n"
         "  0  success\n"
         "  1  invalid input: parse, verifier or shape error "
         "(file:line:col: error: ...), an invalid --target file or tuning "
         "cache\n"
         "  2  usage error: unknown option, bad option value, missing input\n"
         "  3  I/O error: an input cannot be read or an output cannot be "
         "written\n"
         "  4  unsupported: the model is valid but an op has no GPU emitter "
         "yet, or a plan the runtime cannot run yet (collectives across "
         "several GPUs), or a kernel --check-on-host does not interpret\n"
         "  5  no GPU: --bench/--check/--calibrate (or --autotune with GEMMs "
         "not in its cache) found no CUDA driver or no device\n"
         "  6  check failed: an output differs from the reference beyond "
         "tolerance (with --check-on-host also: a kernel accessed memory out "
         "of bounds or misaligned, or raced on shared memory)\n"
         "  7  GPU error: a CUDA call failed while running the kernels, or "
         "cuBLAS did not load with --check-matmuls=gpu\n"
         "  8  internal error: a compiler bug (a pass or an emitter broke an "
         "invariant; the message names it): please report it\n"
         "  9  no collectives: the plan has collective steps and no NCCL "
         "library loaded (--nccl=PATH), or the machine has fewer GPUs than "
         "they span\n";
}

bool opfuse::isInternalError(llvm::StringRef message) {
  return message.starts_with("internal error");
}
