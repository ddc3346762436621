//===- Report.h - Predicted (and measured) cost of a compiled graph -*- C++ -*-===//
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

#include "opfuse/Analysis/CostModel.h"

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
  std::vector<KernelMeasurement> kernels;
};

struct Report {
  GpuTarget target;
  /// Every op a kernel (the model as written) and the compiled kernels.
  GraphAnalysis before, after;
  std::optional<MeasuredRun> measured;
};

/// (predicted - measured) / measured.
double predictionError(double predictedUs, double measuredUs);

/// A table for people.
void writeReportText(const Report &report, llvm::raw_ostream &os);

/// The same as JSON (docs/report-format.md).
llvm::json::Value reportToJson(const Report &report);
void writeReportJson(const Report &report, llvm::raw_ostream &os);

/// The target's roofline (log-log, FLOP/s over FLOP/B) with each kernel of
/// `report.after` as a labelled point: hollow at its predicted FLOP/s,
/// filled at its measured FLOP/s when the report holds a measurement.
void writeRooflineSvg(const Report &report, llvm::raw_ostream &os);

} // namespace opfuse

#endif // OPFUSE_REPORT_REPORT_H
