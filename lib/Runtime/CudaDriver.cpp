//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// dlsym of the versioned entry points cuda.h maps its names to (cuMemAlloc
// is cuMemAlloc_v2): plain short names would bind the old ABI.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/CudaDriver.h"

#include "BindSymbol.h"

#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

namespace opfuse::cuda {

char UnavailableError::ID = 0;

struct Driver::Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  // CUDA 12 and later; bound when present (checked where used).
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Streams and graphs; bound when present (hasGraphs()).
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  // CUDA 11.8 and later; bound when present (hasEarlyLaunch()).
  CUresult (*cuLaunchKernelEx)(const void *, CUfunction, void **, void **);
};

namespace {

// cuda.h's CUlaunchAttribute and CUlaunchConfig, spelled out as the rest of
// the API is (no CUDA headers at build time): a 4-byte id padded to 8, a
// 64-byte value union.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int flag;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "cuda.h's CUlaunchAttribute");

struct LaunchConfig {
  unsigned gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes;
  CUstream stream;
  LaunchAttribute *attributes;
  unsigned numAttributes;
};

} // namespace

llvm::Error Driver::check(CUresult result, const char *call) {
  if (result == 0)
    return llvm::Error::success();
  const char *errorName = "CUDA_ERROR_UNKNOWN", *text = "";
  if (api && api->cuGetErrorName)
    api->cuGetErrorName(result, &errorName);
  if (api && api->cuGetErrorString)
    api->cuGetErrorString(result, &text);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::Twine(call) + " failed: " + errorName +
                                     " (" + text + ")");
}

llvm::Expected<std::unique_ptr<Driver>> Driver::open(int ordinal) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver->library)
    return llvm::make_error<UnavailableError>(
        std::string("no CUDA driver: cannot load libcuda.so.1 (") + dlerror() +
        ")");
  driver->api = std::make_unique<Api>();
  Api &a = *driver->api;
  void *l = driver->library;
  bool ok =
      bindSymbol(l, "cuInit", a.cuInit) &&
      bindSymbol(l, "cuDeviceGetCount", a.cuDeviceGetCount) &&
      bindSymbol(l, "cuDeviceGet", a.cuDeviceGet) &&
      bindSymbol(l, "cuDeviceGetName", a.cuDeviceGetName) &&
      bindSymbol(l, "cuDeviceGetAttribute", a.cuDeviceGetAttribute) &&
      bindSymbol(l, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain) &&
      bindSymbol(l, "cuDevicePrimaryCtxRelease_v2",
                 a.cuDevicePrimaryCtxRelease) &&
      bindSymbol(l, "cuCtxSetCurrent", a.cuCtxSetCurrent) &&
      bindSymbol(l, "cuCtxSynchronize", a.cuCtxSynchronize) &&
      bindSymbol(l, "cuModuleLoadDataEx", a.cuModuleLoadDataEx) &&
      bindSymbol(l, "cuModuleUnload", a.cuModuleUnload) &&
      bindSymbol(l, "cuModuleGetFunction", a.cuModuleGetFunction) &&
      bindSymbol(l, "cuMemAlloc_v2", a.cuMemAlloc) &&
      bindSymbol(l, "cuMemFree_v2", a.cuMemFree) &&
      bindSymbol(l, "cuMemcpyHtoD_v2", a.cuMemcpyHtoD) &&
      bindSymbol(l, "cuMemcpyDtoH_v2", a.cuMemcpyDtoH) &&
      bindSymbol(l, "cuMemcpyDtoD_v2", a.cuMemcpyDtoD) &&
      bindSymbol(l, "cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync) &&
      bindSymbol(l, "cuMemsetD8Async", a.cuMemsetD8Async) &&
      bindSymbol(l, "cuLaunchKernel", a.cuLaunchKernel) &&
      bindSymbol(l, "cuFuncSetAttribute", a.cuFuncSetAttribute) &&
      bindSymbol(l, "cuEventCreate", a.cuEventCreate) &&
      bindSymbol(l, "cuEventDestroy_v2", a.cuEventDestroy) &&
      bindSymbol(l, "cuEventRecord", a.cuEventRecord) &&
      bindSymbol(l, "cuEventSynchronize", a.cuEventSynchronize) &&
      bindSymbol(l, "cuEventElapsedTime", a.cuEventElapsedTime) &&
      bindSymbol(l, "cuGetErrorName", a.cuGetErrorName) &&
      bindSymbol(l, "cuGetErrorString", a.cuGetErrorString);
  if (!ok)
    return llvm::make_error<UnavailableError>(
        std::string("no usable CUDA driver: libcuda.so.1 lacks ") + dlerror());
  bindSymbol(l, "cuTensorMapEncodeTiled", a.cuTensorMapEncodeTiled);
  if (CUresult result = a.cuInit(0)) {
    const char *errorName = "?";
    a.cuGetErrorName(result, &errorName);
    return llvm::make_error<UnavailableError>(
        std::string("no usable GPU: cuInit failed with ") + errorName);
  }
  int count = 0;
  if (a.cuDeviceGetCount(&count) != 0 || count == 0)
    return llvm::make_error<UnavailableError>("no GPU: the CUDA driver sees "
                                              "no device");
  driver->devices = count;
  if (ordinal >= count)
    return llvm::make_error<UnavailableError>(
        "no GPU " + std::to_string(ordinal) + ": the CUDA driver sees " +
        std::to_string(count));
  if (llvm::Error error =
          driver->check(a.cuDeviceGet(&driver->device, ordinal), "cuDeviceGet"))
    return std::move(error);
  char name[256] = {0};
  a.cuDeviceGetName(name, sizeof(name) - 1, driver->device);
  driver->name = name;
  if (llvm::Error error = driver->check(
          a.cuDevicePrimaryCtxRetain(&driver->context, driver->device),
          "cuDevicePrimaryCtxRetain"))
    return std::move(error);
  if (llvm::Error error =
          driver->check(a.cuCtxSetCurrent(driver->context), "cuCtxSetCurrent"))
    return std::move(error);
  // A stream of our own where graphs can be captured from it. Flags 0 (a
  // blocking stream) keeps its work ordered with the legacy default
  // stream's, which cuBLAS and synchronous copies use.
  const bool graphs =
      bindSymbol(l, "cuStreamCreate", a.cuStreamCreate) &&
      bindSymbol(l, "cuStreamDestroy_v2", a.cuStreamDestroy) &&
      bindSymbol(l, "cuStreamWaitEvent", a.cuStreamWaitEvent) &&
      bindSymbol(l, "cuStreamBeginCapture_v2", a.cuStreamBeginCapture) &&
      bindSymbol(l, "cuStreamEndCapture", a.cuStreamEndCapture) &&
      bindSymbol(l, "cuGraphInstantiateWithFlags",
                 a.cuGraphInstantiateWithFlags) &&
      bindSymbol(l, "cuGraphLaunch", a.cuGraphLaunch) &&
      bindSymbol(l, "cuGraphExecDestroy", a.cuGraphExecDestroy) &&
      bindSymbol(l, "cuGraphDestroy", a.cuGraphDestroy);
  if (graphs && a.cuStreamCreate(&driver->stream, 0) != 0)
    driver->stream = nullptr;
  // Programmatic dependent launch: sm_90 and later, on a stream of ours.
  int major = 0;
  a.cuDeviceGetAttribute(
      &major, static_cast<int>(DeviceAttribute::ComputeCapabilityMajor),
      driver->device);
  driver->earlyLaunch = driver->stream && major >= 9 &&
                        bindSymbol(l, "cuLaunchKernelEx", a.cuLaunchKernelEx);
  return std::move(driver);
}

llvm::Error Driver::beginCapture() {
  if (!stream)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the CUDA driver cannot capture graphs");
  // CU_STREAM_CAPTURE_MODE_RELAXED = 2.
  return check(api->cuStreamBeginCapture(stream, 2), "cuStreamBeginCapture");
}

llvm::Expected<CUgraphExec> Driver::endCapture() {
  CUgraph graph = nullptr;
  if (llvm::Error error =
          check(api->cuStreamEndCapture(stream, &graph), "cuStreamEndCapture"))
    return std::move(error);
  CUgraphExec exec = nullptr;
  llvm::Error error = check(api->cuGraphInstantiateWithFlags(&exec, graph, 0),
                            "cuGraphInstantiateWithFlags");
  api->cuGraphDestroy(graph);
  if (error)
    return std::move(error);
  return exec;
}

llvm::Error Driver::launchGraph(CUgraphExec graph) {
  return check(api->cuGraphLaunch(graph, stream), "cuGraphLaunch");
}

void Driver::destroyGraph(CUgraphExec graph) {
  if (graph)
    api->cuGraphExecDestroy(graph);
}

Driver::~Driver() {
  if (api && sideStream)
    api->cuStreamDestroy(sideStream);
  if (api && stream)
    api->cuStreamDestroy(stream);
  if (api && context)
    api->cuDevicePrimaryCtxRelease(device);
  // The library stays loaded: the driver keeps threads that outlive us.
}

llvm::Expected<int> Driver::attribute(DeviceAttribute which) {
  int value = 0;
  if (llvm::Error error = check(
          api->cuDeviceGetAttribute(&value, static_cast<int>(which), device),
          "cuDeviceGetAttribute"))
    return std::move(error);
  return value;
}

llvm::Expected<CUmodule> Driver::loadModule(const std::string &ptx) {
  CUmodule module = nullptr;
  char log[8192] = {0};
  // CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6.
  int options[] = {5, 6};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result =
      api->cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (result != 0) {
    llvm::Error error = check(result, "cuModuleLoadDataEx");
    return llvm::joinErrors(
        std::move(error),
        llvm::createStringError(llvm::inconvertibleErrorCode(),
                                std::string("PTX JIT log: ") + log));
  }
  return module;
}

void Driver::unloadModule(CUmodule module) {
  if (module)
    api->cuModuleUnload(module);
}

llvm::Expected<CUfunction> Driver::getFunction(CUmodule module,
                                               const std::string &name) {
  CUfunction function = nullptr;
  if (llvm::Error error =
          check(api->cuModuleGetFunction(&function, module, name.c_str()),
                ("cuModuleGetFunction(" + name + ")").c_str()))
    return std::move(error);
  return function;
}

llvm::Expected<CUdeviceptr> Driver::allocate(size_t bytes) {
  CUdeviceptr pointer = 0;
  if (llvm::Error error =
          check(api->cuMemAlloc(&pointer, bytes ? bytes : 1), "cuMemAlloc"))
    return std::move(error);
  return pointer;
}

void Driver::release(CUdeviceptr pointer) {
  if (pointer)
    api->cuMemFree(pointer);
}

llvm::Error Driver::copyToDevice(CUdeviceptr dst, const void *src,
                                 size_t bytes) {
  return check(api->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

llvm::Error Driver::copyToHost(void *dst, CUdeviceptr src, size_t bytes) {
  return check(api->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

llvm::Error Driver::copyOnDevice(CUdeviceptr dst, CUdeviceptr src,
                                 size_t bytes) {
  return check(api->cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}

llvm::Error Driver::copyOnDeviceAsync(CUdeviceptr dst, CUdeviceptr src,
                                      size_t bytes) {
  return check(api->cuMemcpyDtoDAsync(dst, src, bytes, stream),
               "cuMemcpyDtoDAsync");
}

llvm::Error Driver::memsetAsync(CUdeviceptr dst, unsigned char value,
                                size_t bytes) {
  return check(api->cuMemsetD8Async(dst, value, bytes, stream),
               "cuMemsetD8Async");
}

llvm::Error Driver::setSharedMemory(CUfunction function, int64_t bytes) {
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  constexpr int kMaxDynamicShared = 8;
  return check(api->cuFuncSetAttribute(function, kMaxDynamicShared,
                                       static_cast<int>(bytes)),
               "cuFuncSetAttribute");
}

llvm::Error Driver::encodeTensorMap(void *out, bool bf16, CUdeviceptr address,
                                    const std::vector<int64_t> &dims,
                                    const std::vector<int64_t> &strides,
                                    const std::vector<int64_t> &box) {
  if (!api->cuTensorMapEncodeTiled)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or later is "
        "needed for TMA kernels)");
  // cuda.h's enumerators: CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, _BFLOAT16 =
  // 9; INTERLEAVE_NONE = 0; SWIZZLE_128B = 3; L2_PROMOTION_L2_256B = 3;
  // FLOAT_OOB_FILL_NONE = 0 (zeros).
  constexpr int kFloat16 = 6, kBFloat16 = 9, kSwizzle128B = 3,
                kPromotion256B = 3;
  std::vector<uint64_t> globalDims(dims.begin(), dims.end());
  std::vector<uint64_t> globalStrides(strides.begin(), strides.end());
  std::vector<uint32_t> boxDims(box.begin(), box.end());
  std::vector<uint32_t> elementStrides(dims.size(), 1);
  return check(api->cuTensorMapEncodeTiled(
                   out, bf16 ? kBFloat16 : kFloat16, dims.size(),
                   reinterpret_cast<void *>(address), globalDims.data(),
                   globalStrides.data(), boxDims.data(), elementStrides.data(),
                   /*interleave=*/0, kSwizzle128B, kPromotion256B,
                   /*oobFill=*/0),
               "cuTensorMapEncodeTiled");
}

llvm::Error Driver::launch(CUfunction function, const int64_t grid[3],
                           const int64_t block[3], int64_t sharedBytes,
                           void **args, bool early) {
  if (early && earlyLaunch) {
    // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6: the kernel
    // may start once the kernel before it on the stream has triggered
    // (griddepcontrol.launch_dependents, or its end); it waits for that
    // kernel's completion and memory itself (griddepcontrol.wait).
    LaunchAttribute attribute{};
    attribute.id = 6;
    attribute.value.flag = 1;
    LaunchConfig config{static_cast<unsigned>(grid[0]),
                        static_cast<unsigned>(grid[1]),
                        static_cast<unsigned>(grid[2]),
                        static_cast<unsigned>(block[0]),
                        static_cast<unsigned>(block[1]),
                        static_cast<unsigned>(block[2]),
                        static_cast<unsigned>(sharedBytes),
                        stream,
                        &attribute,
                        1};
    return check(api->cuLaunchKernelEx(&config, function, args, nullptr),
                 "cuLaunchKernelEx");
  }
  return check(api->cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                   block[0], block[1], block[2],
                                   static_cast<unsigned>(sharedBytes), stream,
                                   args, nullptr),
               "cuLaunchKernel");
}

llvm::Expected<CUevent> Driver::createEvent(bool timing) {
  CUevent event = nullptr;
  // CU_EVENT_DISABLE_TIMING = 2.
  if (llvm::Error error =
          check(api->cuEventCreate(&event, timing ? 0 : 2), "cuEventCreate"))
    return std::move(error);
  return event;
}

void Driver::destroyEvent(CUevent event) {
  if (event)
    api->cuEventDestroy(event);
}

llvm::Error Driver::record(CUevent event) {
  return check(api->cuEventRecord(event, stream), "cuEventRecord");
}

llvm::Expected<CUstream> Driver::getSideStream() {
  if (!stream)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the CUDA driver has no streams of its own "
                                   "to run collectives beside the kernels");
  // Blocking (flags 0), like the kernels' stream.
  if (!sideStream)
    if (llvm::Error error =
            check(api->cuStreamCreate(&sideStream, 0), "cuStreamCreate"))
      return std::move(error);
  return sideStream;
}

llvm::Error Driver::recordOn(CUevent event, CUstream on) {
  return check(api->cuEventRecord(event, on), "cuEventRecord");
}

llvm::Error Driver::waitFor(CUstream waiting, CUevent event) {
  return check(api->cuStreamWaitEvent(waiting, event, 0), "cuStreamWaitEvent");
}

llvm::Expected<float> Driver::elapsed(CUevent start, CUevent end) {
  if (llvm::Error error =
          check(api->cuEventSynchronize(end), "cuEventSynchronize"))
    return std::move(error);
  float ms = 0;
  if (llvm::Error error =
          check(api->cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime"))
    return std::move(error);
  return ms;
}

llvm::Error Driver::makeCurrent() {
  return check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

llvm::Error Driver::synchronize() {
  return check(api->cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace opfuse::cuda
