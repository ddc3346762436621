//===- Calibrate.h - Measure a GPU for the cost model -----------*- C++ -*-===//
//
// `opt-fuse --calibrate` runs microbenchmarks on device 0 and turns them
// into a GpuTarget whose ceilings are what kernels actually reach: copy
// bandwidth from HBM and from L2, FP32 FMA throughput, tensor-core
// throughput (mma.sync, BF16 and TF32), and the event-timed cost of an
// empty launch. docs/cost-model.md describes each benchmark.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_CALIBRATE_H
#define OPFUSE_RUNTIME_CALIBRATE_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Runtime/CudaDriver.h"

#include "llvm/Support/raw_ostream.h"

namespace opfuse {

struct CalibrateOptions {
  int warmup = 3;
  int iterations = 20;
};

/// The PTX of the microbenchmarks (sm_80 and later).
std::string calibrationPtx();

/// Measures the device behind `driver`. Fields no single-GPU benchmark can
/// measure (NVLink bandwidth) come from `base`; sizes and the chip come from
/// the device's attributes. Writes one line per measurement to `log`.
llvm::Expected<GpuTarget> calibrate(cuda::Driver &driver, const GpuTarget &base,
                                    const CalibrateOptions &options,
                                    llvm::raw_ostream &log);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_CALIBRATE_H
