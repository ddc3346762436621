//===- Nccl.cpp - NCCL, loaded at run time, for collective steps ----------===//
//
// The handful of NCCL entry points a plan's collective steps need, bound by
// dlsym; enum values are nccl.h's (stable across NCCL 2.x).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Nccl.h"

#include "BindSymbol.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <dlfcn.h>
#include <glob.h>

namespace opfuse {

char CollectivesUnavailableError::ID = 0;

namespace {
using ncclResult_t = int;
using ncclComm_t = void *;
// ncclDataType_t and ncclRedOp_t, as nccl.h numbers them.
constexpr int kInt32 = 2, kInt64 = 4, kFloat16 = 6, kFloat32 = 7, kBfloat16 = 9;
constexpr int kSum = 0, kMax = 2;

} // namespace

struct Nccl::Api {
  ncclResult_t (*ncclGetVersion)(int *);
  ncclResult_t (*ncclCommInitAll)(ncclComm_t *, int, const int *);
  ncclResult_t (*ncclCommDestroy)(ncclComm_t);
  // NCCL 2.4 and later; bound when present.
  ncclResult_t (*ncclCommAbort)(ncclComm_t);
  const char *(*ncclGetErrorString)(ncclResult_t);
  ncclResult_t (*ncclAllReduce)(const void *, void *, size_t, int, int,
                                ncclComm_t, cuda::CUstream);
  ncclResult_t (*ncclAllGather)(const void *, void *, size_t, int, ncclComm_t,
                                cuda::CUstream);
  ncclResult_t (*ncclReduceScatter)(const void *, void *, size_t, int, int,
                                    ncclComm_t, cuda::CUstream);
};

std::vector<std::string> ncclCandidates(const std::string &explicitPath) {
  if (!explicitPath.empty())
    return {explicitPath};
  std::vector<std::string> candidates = {"libnccl.so.2"};
  std::vector<std::string> prefixes = {"/usr", "/usr/local", "/opt/conda"};
  for (const char *variable : {"VIRTUAL_ENV", "CONDA_PREFIX", "HOME"})
    if (const char *value = std::getenv(variable))
      prefixes.push_back(value);
  std::vector<std::string> patterns;
  for (const std::string &prefix : prefixes) {
    patterns.push_back(prefix +
                       "/lib/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2");
    patterns.push_back(prefix +
                       "/.local/lib/python3*/site-packages/nvidia/nccl/lib/"
                       "libnccl.so.2");
    patterns.push_back(prefix + "/.pyenv/versions/*/lib/python3*/"
                                "site-packages/nvidia/nccl/lib/libnccl.so.2");
  }
  for (const std::string &pattern : patterns) {
    glob_t found;
    if (glob(pattern.c_str(), 0, nullptr, &found) == 0)
      for (size_t i = 0; i < found.gl_pathc; ++i)
        candidates.push_back(found.gl_pathv[i]);
    globfree(&found);
  }
  return candidates;
}

llvm::Expected<std::unique_ptr<Nccl>> Nccl::open(const std::string &path,
                                                 int ranks) {
  std::unique_ptr<Nccl> nccl(new Nccl());
  std::string tried;
  for (const std::string &candidate : ncclCandidates(path)) {
    nccl->handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (nccl->handle) {
      nccl->libraryPath = candidate;
      break;
    }
    tried += "\n  " + candidate + ": " + dlerror();
  }
  if (!nccl->handle)
    return llvm::make_error<CollectivesUnavailableError>(
        "no NCCL: the plan has collective steps, and libnccl.so.2 did not "
        "load from any of these (give its path with --nccl=PATH):" +
        tried);
  nccl->api = std::make_unique<Api>();
  Api &a = *nccl->api;
  void *l = nccl->handle;
  if (!(bindSymbol(l, "ncclGetVersion", a.ncclGetVersion) &&
        bindSymbol(l, "ncclCommInitAll", a.ncclCommInitAll) &&
        bindSymbol(l, "ncclCommDestroy", a.ncclCommDestroy) &&
        bindSymbol(l, "ncclGetErrorString", a.ncclGetErrorString) &&
        bindSymbol(l, "ncclAllReduce", a.ncclAllReduce) &&
        bindSymbol(l, "ncclAllGather", a.ncclAllGather) &&
        bindSymbol(l, "ncclReduceScatter", a.ncclReduceScatter)))
    return llvm::make_error<CollectivesUnavailableError>(
        "no usable NCCL: " + nccl->libraryPath + " lacks " + dlerror());
  if (!bindSymbol(l, "ncclCommAbort", a.ncclCommAbort))
    a.ncclCommAbort = nullptr;
  a.ncclGetVersion(&nccl->versionCode);
  std::vector<int> devices(ranks);
  for (int i = 0; i < ranks; ++i)
    devices[i] = i;
  nccl->comms.assign(ranks, nullptr);
  if (ncclResult_t result =
          a.ncclCommInitAll(nccl->comms.data(), ranks, devices.data())) {
    nccl->comms.clear();
    return llvm::make_error<CollectivesUnavailableError>(
        llvm::formatv("NCCL ({0}) could not set up a communicator of {1} "
                      "GPU(s): {2}",
                      nccl->libraryPath, ranks, a.ncclGetErrorString(result))
            .str());
  }
  nccl->numRanks = ranks;
  return std::move(nccl);
}

bool Nccl::abort() {
  if (!api || !api->ncclCommAbort || aborted.exchange(true))
    return false;
  for (void *comm : comms)
    if (comm)
      api->ncclCommAbort(comm);
  return true;
}

Nccl::~Nccl() {
  // An aborted communicator is freed by its abort.
  if (api && !aborted)
    for (void *comm : comms)
      if (comm)
        api->ncclCommDestroy(comm);
  // The library stays loaded, as libcuda does: NCCL keeps threads.
}

std::string Nccl::version() const {
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
  return llvm::formatv("{0}.{1}.{2}", versionCode / 10000,
                       versionCode / 100 % 100, versionCode % 100)
      .str();
}

llvm::Error Nccl::run(const PlanCollective &collective, const LaunchPlan &plan,
                      cuda::CUdeviceptr input, cuda::CUdeviceptr output,
                      cuda::CUstream stream, int rank) {
  const PlanBuffer &in = plan.buffers[collective.input];
  const PlanBuffer &out = plan.buffers[collective.output];
  int type = -1;
  switch (in.dtype) {
  case DType::F32:
    type = kFloat32;
    break;
  case DType::F16:
    type = kFloat16;
    break;
  case DType::BF16:
    type = kBfloat16;
    break;
  case DType::I32:
    type = kInt32;
    break;
  case DType::I64:
    type = kInt64;
    break;
  case DType::I1:
    break;
  }
  if (type < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a collective on i1 (NCCL has no boolean type)");
  const int op = collective.reduce == "max" ? kMax : kSum;
  if (rank < 0 || rank >= static_cast<int>(comms.size()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "rank " + std::to_string(rank) +
                                       " of a communicator of " +
                                       std::to_string(comms.size()));
  if (aborted)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "NCCL's communicator was aborted: another device of the run failed");
  void *comm = comms[rank];
  const void *send = reinterpret_cast<const void *>(input);
  void *receive = reinterpret_cast<void *>(output);
  ncclResult_t result = 0;
  const char *call = "";
  switch (collective.kind) {
  case CollectiveKind::AllReduce:
    call = "ncclAllReduce";
    result = api->ncclAllReduce(send, receive, in.elements(), type, op, comm,
                                stream);
    break;
  case CollectiveKind::AllGather:
    call = "ncclAllGather";
    result =
        api->ncclAllGather(send, receive, in.elements(), type, comm, stream);
    break;
  case CollectiveKind::ReduceScatter:
    call = "ncclReduceScatter";
    result = api->ncclReduceScatter(send, receive, out.elements(), type, op,
                                    comm, stream);
    break;
  }
  if (result != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine(call) + " failed: " + api->ncclGetErrorString(result));
  return llvm::Error::success();
}

} // namespace opfuse
