//===- ReferenceCost.cpp - How long --check's reference will take ---------===//
//
// Rates of the H200 host (16 cores; docs/running-on-a-gpu.md). Every
// element an op reads or writes costs about kSecondsPerElement, all in:
// the op itself (on every core for elementwise ops, on one for the
// others), allocating and filling its result, the inputs and the
// comparison; --check of the MLP example, about 0.74 G elements, took 25.7 s
// with its matmuls on the GPU. Contractions on the host spread over every
// core at kHostMultiplyAddsPerThread each; the GPU's DGEMM, with the
// copies in and out, runs at kGpuMultiplyAdds.
//
//===----------------------------------------------------------------------===//

#include "ReferenceCost.h"

#include "GpuReference.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace opfuse {

namespace {
constexpr double kSecondsPerElement = 30e-9;
constexpr double kHostMultiplyAddsPerThread = 1.0e9;
constexpr double kGpuMultiplyAdds = 1.0e12;

double elementsOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  double n = 1;
  for (int64_t d : shaped.getShape())
    n *= static_cast<double>(d);
  return n;
}
} // namespace

ReferenceWork &ReferenceWork::operator+=(const ReferenceWork &other) {
  elements += other.elements;
  offloadableMultiplyAdds += other.offloadableMultiplyAdds;
  hostMultiplyAdds += other.hostMultiplyAdds;
  return *this;
}

ReferenceWork ReferenceWork::scaled(double factor) const {
  ReferenceWork work = *this;
  work.elements *= factor;
  work.offloadableMultiplyAdds *= factor;
  work.hostMultiplyAdds *= factor;
  return work;
}

ReferenceWork referenceWork(func::FuncOp func) {
  ReferenceWork work;
  func.walk([&](Operation *op) {
    if (isa<fuse::GroupOp, func::FuncOp, func::ReturnOp, fuse::YieldOp>(op))
      return;
    if (auto matmul = dyn_cast<fuse::MatmulOp>(op)) {
      const double multiplyAdds =
          elementsOf(matmul.getType()) * matmul.getContractionSize();
      (multiplyAdds >= GpuMatmulOffload::kMinMultiplyAdds
           ? work.offloadableMultiplyAdds
           : work.hostMultiplyAdds) += multiplyAdds;
      return;
    }
    if (auto conv = dyn_cast<fuse::Conv2DOp>(op)) {
      // Each output element sums KH x KW x C/groups products.
      auto filter = cast<ShapedType>(conv.getFilter().getType());
      work.hostMultiplyAdds += elementsOf(conv.getType()) *
                               filter.getDimSize(1) * filter.getDimSize(2) *
                               filter.getDimSize(3);
      return;
    }
    double elements = 0;
    for (Type type : op->getResultTypes())
      elements = std::max(elements, elementsOf(type));
    for (Type type : op->getOperandTypes())
      elements = std::max(elements, elementsOf(type));
    work.elements += elements;
  });
  return work;
}

double estimateReferenceSeconds(const ReferenceWork &work, bool gpuMatmuls,
                                unsigned threads) {
  const double hostRate = kHostMultiplyAddsPerThread * std::max(1u, threads);
  double seconds =
      work.elements * kSecondsPerElement + work.hostMultiplyAdds / hostRate;
  seconds += gpuMatmuls ? work.offloadableMultiplyAdds / kGpuMultiplyAdds
                        : work.offloadableMultiplyAdds / hostRate;
  return seconds;
}

std::string describeReferenceCost(const ReferenceWork &work, bool gpuMatmuls,
                                  unsigned threads, double threshold) {
  const double seconds = estimateReferenceSeconds(work, gpuMatmuls, threads);
  if (seconds < threshold)
    return "";
  const double hostFlops =
      2 *
      (work.hostMultiplyAdds + (gpuMatmuls ? 0 : work.offloadableMultiplyAdds));
  std::string text =
      llvm::formatv("about {0} s", static_cast<int64_t>(seconds + 0.5)).str();
  text += llvm::formatv(" ({0:F2} G elements through the host",
                        work.elements / 1e9);
  if (hostFlops > 0)
    text += llvm::formatv(", {0:F1} TFLOP of contractions on {1} host threads",
                          hostFlops / 1e12, threads);
  if (gpuMatmuls && work.offloadableMultiplyAdds > 0)
    text += llvm::formatv(", {0:F1} TFLOP of matmuls on the GPU",
                          2 * work.offloadableMultiplyAdds / 1e12);
  return text + ")";
}

std::function<void(int64_t, int64_t)> referenceProgressLine(StringRef check,
                                                            StringRef phase) {
  return [prefix = ("opt-fuse: " + check + ": " + phase + ": op").str()](
             int64_t done, int64_t total) {
    llvm::errs() << "\r" << prefix << " " << done << " of " << total
                 << "\x1b[K";
    if (done == total)
      llvm::errs() << "\r\x1b[K";
    llvm::errs().flush();
  };
}

} // namespace opfuse
