//===- Executor.h - Run a launch plan on the GPU and time it ----*- C++ -*-===//
//
// Allocates the plan's buffers, fills the inputs from a seeded generator,
// launches the kernels in order and measures them with CUDA events: whole
// runs and each kernel alone, after warm-up, reported as P50/P99/mean, and a
// device-to-device copy of the same size in the same run as the yardstick.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_EXECUTOR_H
#define OPFUSE_RUNTIME_EXECUTOR_H

#include "opfuse/Runtime/CudaDriver.h"
#include "opfuse/Runtime/LaunchPlan.h"
#include "opfuse/Runtime/MessageError.h"
#include "opfuse/Runtime/Nccl.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// A tensor in host memory, stored as the device stores it.
struct HostBuffer {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  int64_t elements() const;
  /// Element `i` as a double (bf16/f16 decoded exactly).
  double get(int64_t i) const;
  /// Stores `value` at `i`, rounded to nearest even for bf16/f16.
  void set(int64_t i, double value);
};

HostBuffer makeHostBuffer(DType dtype, const std::vector<int64_t> &shape);

/// Buffers of `specs` (dtype and shape) filled deterministically from
/// `seed`: floats uniform in [-r, r) for the spec's `seedRange` r (2 unless
/// the input is a weight), integers in [-8, 8], booleans at random. The i-th
/// buffer's values depend only on `seed`, `i` and its spec.
std::vector<HostBuffer> generateInputs(llvm::ArrayRef<PlanBuffer> specs,
                                       uint64_t seed);

/// The same for the plan's input buffers, in order.
std::vector<HostBuffer> generateInputs(const LaunchPlan &plan, uint64_t seed);

struct BenchOptions {
  int warmup = 10;
  int iterations = 100;
  /// Print progress to stderr (the driver sets it when stderr is a tty).
  bool progress = false;
  /// Capture the plan's steps into a CUDA graph once and replay it (where
  /// the driver can): one launch per run instead of one per step. The
  /// outputs come from a replay; runs are timed both ways.
  bool cudaGraph = true;
  /// Launch the kernels the plan marks early_launch as programmatic
  /// dependent launches when they follow a kernel (where the driver and
  /// GPU can): each may start while the one before it finishes.
  bool earlyLaunch = true;
  /// Run the collectives the plan puts beside the kernels (overlap_sms:
  /// the chunks of a windowed layer) on a second stream, where the driver
  /// has streams of its own; off: every step on the kernels' stream. When
  /// on and the plan overlaps, runs are also timed with it off, so that
  /// the result says how much the overlap hid.
  bool overlapCollectives = true;
  /// Where libnccl.so.2 is, for plans with collective steps; empty: search
  /// (opfuse/Runtime/Nccl.h).
  std::string ncclPath;
  /// An SPMD run (one runPlan a device, each on its own thread): the
  /// communicator over every device, this device's rank in it, and a hook
  /// each device calls once its buffers are set up, before any step runs,
  /// with whether that worked; it returns whether every device's did (a
  /// device must not enter a collective that a failed one never joins).
  /// Null: one device, with a communicator of one rank when the plan has
  /// collective steps.
  Nccl *communicator = nullptr;
  int rank = 0;
  std::function<bool(bool)> setupDone;
};

/// Microseconds.
struct LatencyStats {
  double p50 = 0, p99 = 0, mean = 0, min = 0;
};
LatencyStats summarize(std::vector<double> samples);

struct BenchResult {
  std::string device;
  /// Whole runs, as the faster way of launching them runs them: a CUDA
  /// graph replay or the steps launched on the stream one by one.
  LatencyStats total;
  /// Whether `total` is the graph's (else the stream's).
  bool totalIsGraph = false;
  /// Whole runs launched step by step on the stream.
  LatencyStats stream;
  /// Whole runs as one CUDA graph replay; unset without a graph.
  std::optional<LatencyStats> graph;
  std::vector<LatencyStats> kernels;
  /// Kernel steps of a run launched early (programmatic dependent launch).
  int earlyLaunches = 0;
  /// Collective steps that ran beside the kernels, and whole runs launched
  /// step by step with every step on the kernels' stream instead (unset
  /// when none ran beside them): the difference is the time hidden.
  int overlappedSteps = 0;
  std::optional<LatencyStats> serial;
  /// Device-memory bytes the kernels move per run (from the plan).
  int64_t bytesMoved = 0;
  /// Bytes of device memory allocated for the plan's buffers.
  int64_t bytesAllocated = 0;
  /// Read+write bandwidth of cuMemcpyDtoD in the same run, GB/s.
  double copyGBs = 0;
  std::vector<HostBuffer> outputs;
  double achievedGBs() const {
    return total.p50 > 0 ? bytesMoved / (total.p50 * 1e3) : 0;
  }
};

/// Times `body` with CUDA events: `warmup` untimed runs, then one sample
/// per run, in microseconds.
llvm::Expected<std::vector<double>>
timeWithEvents(cuda::Driver &driver, int warmup, int iterations,
               llvm::function_ref<llvm::Error()> body);

/// Runs `plan` once for its outputs, then benchmarks it (iterations may be
/// 0 to only run it).
/// A valid plan this runtime cannot run (collectives of a multi-GPU
/// program): the model is fine, the support is missing.
class UnsupportedPlanError : public MessageError<UnsupportedPlanError> {
public:
  static char ID;
  using MessageError::MessageError;
};

/// What stopped a run, as the tools' exit codes tell it apart: a CUDA
/// failure, a plan this runtime cannot run (UnsupportedPlanError), or
/// collectives that cannot run here (CollectivesUnavailableError).
enum class RunFailure : int { Gpu, UnsupportedPlan, CollectivesUnavailable };
RunFailure classifyRunFailure(const llvm::Error &error);

llvm::Expected<BenchResult>
runPlan(cuda::Driver &driver, const std::string &ptx, const LaunchPlan &plan,
        const std::vector<HostBuffer> &inputs, const BenchOptions &options);

/// The measurement as a table for people, or as JSON for scripts.
void printBench(llvm::raw_ostream &os, const LaunchPlan &plan,
                const BenchResult &result);
void printBenchJson(llvm::raw_ostream &os, const LaunchPlan &plan,
                    const BenchResult &result);
/// The JSON document printBenchJson prints, for a caller to add to.
llvm::json::Object benchToJson(const LaunchPlan &plan,
                               const BenchResult &result);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_EXECUTOR_H
