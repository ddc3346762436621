//===- Cublas.h - cuBLAS's f64 GEMM, loaded at run time ---------*- C++ -*-===//
//
// libcublas opened with dlopen, like libcuda: nothing links against it, and
// a machine without it computes --check's reference matmuls on the host
// instead. Only what the reference needs: a handle and DGEMM.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_CUBLAS_H
#define OPFUSE_RUNTIME_CUBLAS_H

#include "opfuse/Runtime/CudaDriver.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace opfuse::cuda {

class Cublas {
public:
  /// Opens libcublas (the sonames of CUDA 13 and 12 on the library path,
  /// then under `toolkit`/lib64 when `toolkit` is not empty) and creates a
  /// handle on the current context (the Driver's). Fails with the reason.
  static llvm::Expected<std::unique_ptr<Cublas>> open(llvm::StringRef toolkit);
  ~Cublas();

  /// The library that was opened (for messages).
  const std::string &path() const { return libraryPath; }

  /// Column-major C (m x n, leading dimension ldc) = op(A) op(B) in f64,
  /// op(X) = X^T where `transposeX`; device pointers.
  llvm::Error dgemm(bool transposeA, bool transposeB, int m, int n, int k,
                    CUdeviceptr a, int lda, CUdeviceptr b, int ldb,
                    CUdeviceptr c, int ldc);

private:
  Cublas() = default;
  struct Api;
  std::unique_ptr<Api> api;
  void *library = nullptr;
  void *handle = nullptr;
  std::string libraryPath;
};

} // namespace opfuse::cuda

#endif // OPFUSE_RUNTIME_CUBLAS_H
