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
/// measure (NVLink bandwidth; measureLinkBandwidth below) come from `base`;
/// sizes and the chip come from the device's attributes. Writes one line per
/// measurement to `log`.
llvm::Expected<GpuTarget> calibrate(cuda::Driver &driver, const GpuTarget &base,
                                    const CalibrateOptions &options,
                                    llvm::raw_ostream &log);

/// What measureLinkBandwidth found: the P50 of one all_reduce and the bus
/// bandwidth, bytes x 2(N-1)/N over that time (what each device sends in a
/// ring, as nccl-tests counts it).
struct LinkMeasurement {
  double p50Us = 0;
  double busBandwidth = 0;
};

/// Times an all_reduce (sum, out of place) of `bytes` of bf16 on GPUs 0 to
/// `devices`-1 (`first` is GPU 0) through NCCL, a thread a GPU, as an SPMD
/// run of a one-step plan; GPU 0's P50. With `ctas` > 0 the step carries
/// overlap_sms = `ctas`, so NCCL is held to that many CTAs when
/// NCCL_MAX_CTAS is not set yet (it stays set for the process: measure the
/// full width first). A machine with fewer GPUs or without NCCL is a
/// CollectivesUnavailableError.
llvm::Expected<LinkMeasurement>
measureLinkBandwidth(cuda::Driver &first, int devices, int64_t bytes, int ctas,
                     const std::string &ncclPath,
                     const CalibrateOptions &options, llvm::raw_ostream &log);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_CALIBRATE_H
