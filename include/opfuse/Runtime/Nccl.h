//===- Nccl.h - NCCL, loaded at run time, for collective steps --*- C++ -*-===//
//
// libnccl.so.2 opened with dlopen, as libcuda is: nothing links against
// NCCL, and a machine without it gets a precise error only when a plan has
// collective steps. Found at --nccl=PATH, on the library path, or in a
// PyTorch installation's NVIDIA wheels (nvidia/nccl/lib).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_NCCL_H
#define OPFUSE_RUNTIME_NCCL_H

#include "opfuse/Runtime/CudaDriver.h"
#include "opfuse/Runtime/LaunchPlan.h"
#include "opfuse/Runtime/MessageError.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace opfuse {

/// Collective steps cannot run here: NCCL is not there or not usable, or
/// the machine has fewer GPUs than the plan's collectives span.
class CollectivesUnavailableError
    : public MessageError<CollectivesUnavailableError> {
public:
  static char ID;
  using MessageError::MessageError;
};

/// The places NCCL is looked for, in order, after an explicit path: the
/// loader's own search ("libnccl.so.2"), then the nvidia/nccl/lib of the
/// Python installations found (PyTorch's CUDA wheels ship NCCL there).
std::vector<std::string> ncclCandidates(const std::string &explicitPath);

/// One communicator over `ranks` GPUs of this process (ncclCommInitAll),
/// and the collective calls the plan's steps make on a stream.
class Nccl {
public:
  /// Opens NCCL (`path` if not empty, else the candidates in turn) and
  /// initialises a communicator of `ranks` devices, 0 to ranks-1.
  static llvm::Expected<std::unique_ptr<Nccl>> open(const std::string &path,
                                                    int ranks);
  ~Nccl();

  /// The library that was loaded, and NCCL's version ("2.27.3").
  const std::string &library() const { return libraryPath; }
  std::string version() const;
  int ranks() const { return numRanks; }

  /// Runs `collective` (a plan step) between `input` and `output` on
  /// `stream`, as `rank` of the communicator (GPU `rank`).
  llvm::Error run(const PlanCollective &collective, const LaunchPlan &plan,
                  cuda::CUdeviceptr input, cuda::CUdeviceptr output,
                  cuda::CUstream stream, int rank = 0);

  /// Aborts every rank's communicator (ncclCommAbort), once, from any
  /// thread: an SPMD run whose device failed stops the others, whose
  /// collectives would otherwise wait for it forever. Later calls of run()
  /// fail. Returns whether this call aborted them (false: already done).
  bool abort();

private:
  Nccl() = default;
  struct Api;
  std::unique_ptr<Api> api;
  void *handle = nullptr;
  std::string libraryPath;
  int numRanks = 0;
  int versionCode = 0;
  std::vector<void *> comms;
  std::atomic<bool> aborted{false};
};

} // namespace opfuse

#endif // OPFUSE_RUNTIME_NCCL_H
