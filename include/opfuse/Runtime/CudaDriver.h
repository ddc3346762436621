//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda.so.1 opened with dlopen, so nothing links against CUDA and a
// machine without a driver gets an error instead of a loader failure. Every
// call is checked; errors carry the CUDA error name.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_CUDADRIVER_H
#define OPFUSE_RUNTIME_CUDADRIVER_H

#include "opfuse/Runtime/MessageError.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opfuse::cuda {

// The few driver types the runtime uses, ABI-compatible with cuda.h.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUevent = struct CUevent_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

/// No driver library or no device: the machine cannot run kernels at all.
/// The CUdevice_attribute values we read (cuda.h's numbering).
enum class DeviceAttribute : int {
  MultiprocessorCount = 16,
  L2CacheSize = 38,
  ComputeCapabilityMajor = 75,
  ComputeCapabilityMinor = 76,
  MaxSharedMemoryPerMultiprocessor = 81,
  MaxSharedMemoryPerBlockOptin = 97,
};

class UnavailableError : public MessageError<UnavailableError> {
public:
  static char ID;
  using MessageError::MessageError;
};

class Driver {
public:
  /// Opens libcuda.so.1, initialises it and makes device `ordinal`'s
  /// primary context current. The error message says which step failed.
  static llvm::Expected<std::unique_ptr<Driver>> open(int ordinal = 0);
  /// Makes this driver's context the calling thread's (each thread that
  /// drives a device of an SPMD run calls it first).
  llvm::Error makeCurrent();
  ~Driver();

  std::string deviceName() const { return name; }
  llvm::Expected<int> attribute(DeviceAttribute which);

  llvm::Expected<CUmodule> loadModule(const std::string &ptx);
  void unloadModule(CUmodule module);
  llvm::Expected<CUfunction> getFunction(CUmodule module,
                                         const std::string &name);
  llvm::Expected<CUdeviceptr> allocate(size_t bytes);
  void release(CUdeviceptr pointer);
  llvm::Error copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
  llvm::Error copyToHost(void *dst, CUdeviceptr src, size_t bytes);
  llvm::Error copyOnDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  /// A device-to-device copy and a byte fill queued on the stream the
  /// kernels run on, in order with them (plan steps).
  llvm::Error copyOnDeviceAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  llvm::Error memsetAsync(CUdeviceptr dst, unsigned char value, size_t bytes);
  /// Lets `function` use up to `bytes` of dynamic shared memory (beyond
  /// the default 48 KiB).
  llvm::Error setSharedMemory(CUfunction function, int64_t bytes);
  /// Encodes a tiled TMA tensor map of 2-byte elements (`bf16` or f16) at
  /// `address` into the 128 bytes at `out` (64-byte aligned): `dims`
  /// innermost first, byte `strides` of the others, `box` per copy;
  /// 128-byte swizzle, 256-byte L2 promotion, zeros outside the tensor.
  llvm::Error encodeTensorMap(void *out, bool bf16, CUdeviceptr address,
                              const std::vector<int64_t> &dims,
                              const std::vector<int64_t> &strides,
                              const std::vector<int64_t> &box);
  /// Launches `function` on the runtime's stream; `early` (where
  /// hasEarlyLaunch()) lets it start before the kernel queued before it
  /// ends: programmatic dependent launch, for kernels that wait for the
  /// grids before them (griddepcontrol.wait) before touching their data.
  llvm::Error launch(CUfunction function, const int64_t grid[3],
                     const int64_t block[3], int64_t sharedBytes, void **args,
                     bool early = false);
  /// An event; without `timing`, one only for ordering streams (cheaper).
  llvm::Expected<CUevent> createEvent(bool timing = true);
  void destroyEvent(CUevent event);
  llvm::Error record(CUevent event);
  /// The second stream collectives beside the kernels run on (created on
  /// first use, where hasGraphs()), and the two ways streams meet: an
  /// event recorded on one, and another waiting for it.
  llvm::Expected<CUstream> getSideStream();
  llvm::Error recordOn(CUevent event, CUstream on);
  llvm::Error waitFor(CUstream waiting, CUevent event);
  /// Milliseconds between two recorded events (waits for `end`).
  llvm::Expected<float> elapsed(CUevent start, CUevent end);
  llvm::Error synchronize();

  /// Whether the driver captures streams into CUDA graphs (CUDA 11.4 or
  /// later): then the kernels, copies and events go to a stream of the
  /// runtime's own, since the legacy default stream cannot be captured.
  bool hasGraphs() const { return stream != nullptr; }
  /// Whether launches can be programmatic (early): an sm_90 or later GPU,
  /// a driver with cuLaunchKernelEx, and a stream of the runtime's own.
  bool hasEarlyLaunch() const { return earlyLaunch; }
  /// The stream the runtime queues its work on (null: the legacy one), for
  /// libraries that take one (NCCL).
  CUstream getStream() const { return stream; }
  /// GPUs the driver sees.
  int deviceCount() const { return devices; }
  /// Starts recording what is queued on the runtime's stream into a graph
  /// instead of running it (relaxed mode: other threads may use CUDA).
  llvm::Error beginCapture();
  /// Ends the capture and instantiates the graph recorded; after an error
  /// during capture, call it all the same to give the stream back (the
  /// graph is then discarded).
  llvm::Expected<CUgraphExec> endCapture();
  /// Replays an instantiated graph on the runtime's stream.
  llvm::Error launchGraph(CUgraphExec graph);
  void destroyGraph(CUgraphExec graph);

private:
  Driver() = default;
  llvm::Error check(CUresult result, const char *call);
  struct Api;
  std::unique_ptr<Api> api;
  void *library = nullptr;
  CUcontext context = nullptr;
  CUdevice device = 0;
  int devices = 0;
  /// The stream everything is queued on: the runtime's own where graphs
  /// are available, else the legacy default stream (null).
  CUstream stream = nullptr;
  CUstream sideStream = nullptr;
  bool earlyLaunch = false;
  std::string name;
};

} // namespace opfuse::cuda

#endif // OPFUSE_RUNTIME_CUDADRIVER_H
