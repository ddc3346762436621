//===- Report.h - Predicted and measured cost of a graph --------*- C++ -*-===//
//
// What `opt-fuse --emit=report|report-json|roofline` writes: each kernel's
// ops, class, bound kind, FLOPs, bytes, intensity and predicted time on the
// target, the totals before and after fusion, and, after --bench, the
// measured P50/P99 beside each prediction. docs/report-format.md documents
// the JSON schema.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_REPORT_REPORT_H
#define OPFUSE_REPORT_REPORT_H

#include "opfuse/Analysis/BufferGraph.h"
#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Report/OutputCheck.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// Microseconds, from the runtime's event timing after warm-up.
struct KernelMeasurement {
  double p50 = 0, p99 = 0;
};

struct MeasuredRun {
  std::string device;
  /// The whole graph, and each kernel launched alone.
  KernelMeasurement total;
  /// The whole graph launched step by step, and as one CUDA graph replay
  /// (unset without one); `total` is the faster.
  KernelMeasurement stream;
  std::optional<KernelMeasurement> graph;
  /// With collectives beside the kernels: the runs launched step by step
  /// with every step on the kernels' stream instead (`stream` minus it is
  /// what the overlap hid).
  std::optional<KernelMeasurement> serial;
  std::vector<KernelMeasurement> kernels;
  /// Device memory the runtime allocated for the plan's buffers.
  int64_t allocatedBytes = 0;
  /// With --check: each output against the reference.
  std::optional<std::vector<OutputCheck>> checks;
};

/// One arena buffer of the memory plan, for the timeline.
struct PlannedBuffer {
  std::string name;
  /// Kernel steps, inclusive, and place in the arena.
  int first = 0, last = 0;
  int64_t offset = 0, bytes = 0;
};

/// The buffer plan of the compiled function (fuse-plan-memory).
struct MemoryReport {
  MemorySummary summary;
  std::vector<PlannedBuffer> buffers;
  int steps = 0;
};

/// The memory section of the compiled function `func`, if it was planned.
std::optional<MemoryReport> buildMemoryReport(mlir::func::FuncOp func);

struct Report {
  GpuTarget target;
  /// Every op a kernel (the model as written) and the compiled kernels.
  GraphAnalysis before, after;
  std::optional<MeasuredRun> measured;
  std::optional<MemoryReport> memory;
  /// f32 matmuls and convolutions ran as TF32 (--allow-tf32).
  bool allowTF32 = false;
};

/// (predicted - measured) / measured.
double predictionError(double predictedUs, double measuredUs);

/// A table for people.
void writeReportText(const Report &report, llvm::raw_ostream &os);

/// The same as JSON (docs/report-format.md).
llvm::json::Value reportToJson(const Report &report);
void writeReportJson(const Report &report, llvm::raw_ostream &os);

/// The memory plan as a timeline: x the kernel step, y the arena offset,
/// one rectangle per buffer, the lower bound as a line.
void writeMemorySvg(const Report &report, llvm::raw_ostream &os);

/// Why fusion left a producer's result to memory, by the producer's
/// location (fuse-elementwise's "not fused" remarks).
using FusionRefusals = llvm::DenseMap<mlir::Location, std::string>;

/// The fused function `func` as a Graphviz DOT graph: ops as nodes, each
/// kernel (fuse.group) a cluster coloured by its bound in `after` (its
/// analysis, kernels in order), edges through memory labelled with their
/// bytes (dashed and red, with the reason as their tooltip, where
/// `refusals` says why fusion refused the producer), the arguments and
/// results as ellipses.
void writeFusedGraphDot(mlir::func::FuncOp func, const GraphAnalysis &after,
                        const FusionRefusals &refusals, llvm::raw_ostream &os);

/// The target's roofline (log-log, FLOP/s over FLOP/B) with each kernel of
/// `report.after` as a labelled point: hollow at its predicted FLOP/s,
/// filled at its measured FLOP/s when the report holds a measurement.
void writeRooflineSvg(const Report &report, llvm::raw_ostream &os);

} // namespace opfuse

#endif // OPFUSE_REPORT_REPORT_H
