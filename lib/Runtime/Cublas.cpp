//===- Cublas.cpp - cuBLAS's f64 GEMM, loaded at run time -----------------===//
//
// The _v2 entry points are what cublas_v2.h maps its names to. cuBLAS runs
// on the CUDA runtime, which adopts the context current on the thread: the
// Driver's primary context, so device pointers from cuMemAlloc are valid.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Cublas.h"

#include "BindSymbol.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <dlfcn.h>

namespace opfuse::cuda {

namespace {
using cublasStatus = int;
using cublasHandle = void *;
// cublasOperation_t and cublasMath_t values of cublas_api.h.
constexpr int kOpN = 0, kOpT = 1;
constexpr int kPedanticMath = 2;

} // namespace

struct Cublas::Api {
  cublasStatus (*create)(cublasHandle *);
  cublasStatus (*destroy)(cublasHandle);
  cublasStatus (*setMathMode)(cublasHandle, int);
  cublasStatus (*dgemm)(cublasHandle, int, int, int, int, int, const double *,
                        const double *, int, const double *, int,
                        const double *, double *, int);
};

llvm::Expected<std::unique_ptr<Cublas>> Cublas::open(llvm::StringRef toolkit) {
  llvm::SmallVector<std::string> candidates = {"libcublas.so.13",
                                               "libcublas.so.12"};
  if (!toolkit.empty())
    for (const char *name : {"libcublas.so.13", "libcublas.so.12"})
      candidates.push_back((toolkit + "/lib64/" + name).str());
  std::unique_ptr<Cublas> cublas(new Cublas());
  std::string failures;
  for (const std::string &candidate : candidates) {
    cublas->library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cublas->library) {
      cublas->libraryPath = candidate;
      break;
    }
    failures += "\n  " + std::string(dlerror());
  }
  if (!cublas->library)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no cuBLAS:" + failures);
  cublas->api = std::make_unique<Api>();
  Api &a = *cublas->api;
  void *l = cublas->library;
  if (!bindSymbol(l, "cublasCreate_v2", a.create) ||
      !bindSymbol(l, "cublasDestroy_v2", a.destroy) ||
      !bindSymbol(l, "cublasSetMathMode", a.setMathMode) ||
      !bindSymbol(l, "cublasDgemm_v2", a.dgemm))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   cublas->libraryPath + " lacks " + dlerror());
  if (cublasStatus status = a.create(&cublas->handle)) {
    cublas->handle = nullptr;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cublasCreate failed with status " +
                                       llvm::Twine(status));
  }
  // IEEE f64 FMAs only: no emulation or reduced-precision shortcut.
  a.setMathMode(cublas->handle, kPedanticMath);
  return std::move(cublas);
}

Cublas::~Cublas() {
  if (api && handle)
    api->destroy(handle);
  // The library stays loaded: the CUDA runtime inside keeps threads.
}

llvm::Error Cublas::dgemm(bool transposeA, bool transposeB, int m, int n, int k,
                          CUdeviceptr a, int lda, CUdeviceptr b, int ldb,
                          CUdeviceptr c, int ldc) {
  const double one = 1.0, zero = 0.0;
  cublasStatus status =
      api->dgemm(handle, transposeA ? kOpT : kOpN, transposeB ? kOpT : kOpN, m,
                 n, k, &one, reinterpret_cast<const double *>(a), lda,
                 reinterpret_cast<const double *>(b), ldb, &zero,
                 reinterpret_cast<double *>(c), ldc);
  if (status)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cublasDgemm failed with status " +
                                       llvm::Twine(status));
  return llvm::Error::success();
}

} // namespace opfuse::cuda
