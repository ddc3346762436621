//===- Offload.h - Where the reference computes its large matmuls -*- C++
//-*-===//
//
// The reference interpreter's matmuls in f64 are the one part of --check
// whose work grows faster than the model's data: the two GEMMs of a
// transformer MLP are 1.5 TFLOP, an hour on one core and minutes on all of
// them. A ContractionOffload computes them elsewhere (the driver offers
// the GPU's f64 GEMM through cuBLAS) and may decline any of them; the
// interpreter then computes it on the host's cores.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_REFERENCE_OFFLOAD_H
#define OPFUSE_REFERENCE_OFFLOAD_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace opfuse::reference {

/// One batched matmul: `out` (batches x rows x cols) from the batches of
/// `a` (rows x k, or k x rows when transposeA) and `b` (k x cols, or
/// cols x k when transposeB); output batch `i` reads the operand batches
/// aBatchOf[i] and bBatchOf[i]. Every array is row-major and dense.
struct MatmulOperands {
  const double *a = nullptr, *b = nullptr;
  double *out = nullptr;
  int64_t rows = 0, cols = 0, k = 0;
  bool transposeA = false, transposeB = false;
  llvm::ArrayRef<int64_t> aBatchOf, bBatchOf;

  /// Multiply-adds of the whole matmul.
  double multiplyAdds() const {
    return static_cast<double>(aBatchOf.size()) * rows * cols * k;
  }
};

/// Computes matmuls with f64 sums somewhere else than the host's cores.
class ContractionOffload {
public:
  virtual ~ContractionOffload() = default;
  /// Fills `operands.out` and returns true, or returns false (leaving
  /// `out` to be overwritten) when it does not take this matmul.
  virtual bool matmul(const MatmulOperands &operands) = 0;
};

} // namespace opfuse::reference

#endif // OPFUSE_REFERENCE_OFFLOAD_H
