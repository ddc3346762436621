//===- ExitCodes.h - Exit codes of the opfuse tools -------------*- C++ -*-===//
//
// Each failure class has its own code so scripts can tell bad input from bad
// usage from a broken file system. README.md and `opt-fuse --help` list them.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DRIVER_EXITCODES_H
#define OPFUSE_DRIVER_EXITCODES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace opfuse {

enum ExitCode : int {
  /// The requested output was produced.
  ExitSuccess = 0,
  /// The input is not a valid model: parse, verifier or shape errors,
  /// reported as file:line:col: error: ...
  ExitInvalidInput = 1,
  /// The command line is wrong: unknown option, bad option value, no input.
  ExitUsage = 2,
  /// An input could not be read or an output could not be written.
  ExitIO = 3,
  /// The model is valid but cannot be compiled yet: an op without a GPU
  /// emitter, or kernel serialisation failed.
  ExitUnsupported = 4,
  /// --bench or --check needs a GPU, and there is no driver or no device.
  ExitNoGpu = 5,
  /// --check: an output differs from the reference beyond its tolerance.
  ExitCheckFailed = 6,
  /// A CUDA call failed while running the kernels.
  ExitGpuError = 7,
  /// A compiler bug: a pass or an emitter broke an invariant it checks
  /// (its error begins "internal error"). Never an unsupported model.
  ExitInternalError = 8,
  /// The plan's collective steps cannot run on this machine: no NCCL
  /// library was found, or it has fewer GPUs than the collectives span.
  ExitNoCollectives = 9,
};

enum class RunFailure : int; // opfuse/Runtime/Executor.h
struct DeviceRun;            // opfuse/Runtime/Spmd.h

/// The exit code of a run that stopped for `failure`: ExitUnsupported,
/// ExitNoCollectives or ExitGpuError.
int exitCodeOf(RunFailure failure);

/// Prints "`tool`: error: ..." for a run that stopped (a failed runPlan
/// or device set-up) and returns its exit code (exitCodeOf).
int reportRunError(llvm::StringRef tool, llvm::Error error);

/// Prints "`tool`: error: GPU d: ..." for every device of an SPMD run that
/// stopped, and returns the exit code of the first (ExitSuccess if none).
int reportDeviceFailures(llvm::StringRef tool,
                         const std::vector<DeviceRun> &runs);

/// The table printed by --help, one line per code.
const char *describeExitCodes();

/// Whether an error diagnostic reports a compiler bug: by convention its
/// message begins "internal error" (and says which pass or emitter).
bool isInternalError(llvm::StringRef message);

} // namespace opfuse

#endif // OPFUSE_DRIVER_EXITCODES_H
