//===- GpuReference.h - --check's reference matmuls on the GPU --*- C++ -*-===//
//
// The reference's large matmuls, with f64 sums, computed by cuBLAS's DGEMM
// on the GPU that ran the kernels: the two GEMMs of the MLP example take
// minutes on the host's cores and well under a second there. The sums are
// f64 either way, so the result differs from the host's only in the order
// of f64 additions, 1e-16 relative, far below every tolerance.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_GPUREFERENCE_H
#define OPFUSE_LIB_DRIVER_GPUREFERENCE_H

#include "opfuse/Reference/Offload.h"
#include "opfuse/Runtime/Cublas.h"
#include "opfuse/Runtime/CudaDriver.h"

#include <memory>
#include <string>
#include <vector>

namespace opfuse {

/// One column-major DGEMM, C = op(X) op(Y), of a row-major batched matmul:
/// X is a batch of the model's B and Y one of its A (C^T = B^T A^T);
/// offsets count doubles from the start of B, A and the output.
struct DgemmCall {
  bool transposeX = false, transposeY = false;
  int m = 0, n = 0, k = 0;
  int64_t xOffset = 0, yOffset = 0, cOffset = 0;
  int ldx = 0, ldy = 0, ldc = 0;
};

/// The DGEMMs that compute `operands`, one per output batch.
std::vector<DgemmCall> planDgemms(const reference::MatmulOperands &operands);

class GpuMatmulOffload : public reference::ContractionOffload {
public:
  /// Matmuls of fewer multiply-adds stay on the host: copying them costs
  /// more than computing them there.
  static constexpr double kMinMultiplyAdds = 1 << 24;

  GpuMatmulOffload(cuda::Driver &driver, std::unique_ptr<cuda::Cublas> cublas)
      : driver(driver), cublas(std::move(cublas)) {}

  bool matmul(const reference::MatmulOperands &operands) override;

  /// The cuBLAS library it calls.
  const std::string &library() const { return cublas->path(); }

  /// Matmuls computed on the GPU so far, and the first failure that sent
  /// one back to the host (empty when none did).
  int offloaded = 0;
  std::string firstFailure;

private:
  llvm::Error run(const reference::MatmulOperands &operands);
  cuda::Driver &driver;
  std::unique_ptr<cuda::Cublas> cublas;
};

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_GPUREFERENCE_H
