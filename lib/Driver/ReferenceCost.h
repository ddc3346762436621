//===- ReferenceCost.h - How long --check's reference will take -*- C++ -*-===//
//
// The reference interpreter is the slow half of --check and
// --check-fusion: it evaluates every op in f64 on the host. Before it
// starts, the driver estimates its time from the work in the model and
// says so when that is long, so a check of a large model does not look
// like a hang.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_REFERENCECOST_H
#define OPFUSE_LIB_DRIVER_REFERENCECOST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>
#include <string>

namespace opfuse {

/// The reference's work on one function.
struct ReferenceWork {
  /// Elements each op reads or writes (the larger), over every op other
  /// than a contraction, inside groups too.
  double elements = 0;
  /// Multiply-adds of matmul and conv2d ops, split by where they can run:
  /// matmuls large enough for the GPU reference, and the rest.
  double offloadableMultiplyAdds = 0;
  double hostMultiplyAdds = 0;

  ReferenceWork &operator+=(const ReferenceWork &other);
  ReferenceWork scaled(double factor) const;
};

ReferenceWork referenceWork(mlir::func::FuncOp func);

/// Seconds the reference needs for `work` on `threads` host threads, with
/// the offloadable matmuls on the GPU when `gpuMatmuls`.
double estimateReferenceSeconds(const ReferenceWork &work, bool gpuMatmuls,
                                unsigned threads);

/// "about 24 s (0.74 G elements through the host, 4.4 TFLOP of matmuls on
/// the GPU)";
/// empty when the estimate is below `threshold` seconds.
std::string describeReferenceCost(const ReferenceWork &work, bool gpuMatmuls,
                                  unsigned threads, double threshold = 10);

/// A progress callback for reference::Options that rewrites one terminal
/// line: "opt-fuse: <check>: <phase>: op 12 of 40", cleared at the end.
std::function<void(int64_t, int64_t)>
referenceProgressLine(llvm::StringRef check, llvm::StringRef phase);

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_REFERENCECOST_H
