//===- NamedIo.h - A model's inputs from files, outputs to files -*- C++
//-*-===//
//
// --inputs NAME=FILE.npy and --save-outputs DIR, shared by opt-fuse and
// opfuse-run: a model's inputs and outputs go by their ONNX names (or argN
// and resultN), which the launch plan carries.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_NAMEDIO_H
#define OPFUSE_RUNTIME_NAMEDIO_H

#include "opfuse/Runtime/Executor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace opfuse {

/// What went wrong: a malformed or unknown --inputs (usage), a file of the
/// wrong shape or dtype (invalid input), a file that cannot be read or
/// written (I/O). Each value is the tools' exit code for it (ExitCodes.h;
/// the runtime does not link the driver).
enum class NamedIoProblem { None = 0, InvalidInput = 1, Usage = 2, IO = 3 };

struct NamedIoResult {
  NamedIoProblem problem = NamedIoProblem::None;
  /// The message, starting with the option it concerns.
  std::string message;
  explicit operator bool() const { return problem != NamedIoProblem::None; }
  int exitCode() const { return static_cast<int>(problem); }
};

/// Replaces the inputs that `specs` (each NAME=FILE.npy) name by the files'
/// contents; NAME is one of `names` or argN. Reads every file before any
/// GPU work, so a bad one costs nothing.
NamedIoResult loadInputFiles(llvm::ArrayRef<std::string> specs,
                             llvm::ArrayRef<std::string> names,
                             std::vector<HostBuffer> &inputs);

/// Writes output i to DIR/names[i].npy, creating DIR.
NamedIoResult saveOutputFiles(llvm::StringRef dir,
                              llvm::ArrayRef<std::string> names,
                              llvm::ArrayRef<HostBuffer> outputs);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_NAMEDIO_H
