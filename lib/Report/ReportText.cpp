//===- ReportText.cpp - The report as a table -----------------------------===//
//
// One row per compiled kernel, then the totals before and after fusion and,
// after --bench, measured beside predicted. Predicted times are per kernel
// launched alone, as the runtime measures them.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Report/Report.h"

#include "Format.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace opfuse {

double predictionError(double predictedUs, double measuredUs) {
  return measuredUs > 0 ? (predictedUs - measuredUs) / measuredUs : 0;
}

namespace {
using report::opList;
using report::siBytes;
using report::siCount;

void writeTarget(const GpuTarget &target, llvm::raw_ostream &os) {
  os << llvm::formatv("target {0}: {1} ({2})\n", target.name,
                      target.description, target.source);
  os << llvm::formatv(
      "  ceilings used: HBM {0:F0} GB/s, L2 {1:F0} GB/s, FP32 {2:F1} "
      "TFLOP/s, FP16/BF16 tensor {3:F1} TFLOP/s, link {4:F0} GB/s, launch "
      "{5:F2} us + {6:F2} us a kernel's latency\n",
      target.hbmBandwidth * target.memoryEfficiency / 1e9,
      target.l2Bandwidth * target.memoryEfficiency / 1e9,
      target.fp32Flops * target.computeEfficiency / 1e12,
      target.fp16TensorFlops * target.tensorEfficiency / 1e12,
      target.linkBandwidth / 1e9, target.launchOverhead * 1e6,
      target.kernelLatency * 1e6);
}

void writePrecision(const Report &report, llvm::raw_ostream &os) {
  if (report.allowTF32)
    os << "precision: f32 matmuls and convolutions on tensor cores as TF32 "
          "(--allow-tf32): inputs rounded to 10-bit mantissas\n";
}

std::string padRight(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

std::string ratio(double before, double after, const char *what) {
  if (after <= 0 || before <= 0 || before == after)
    return "";
  return llvm::formatv(" ({0:F2}x {1})", before / after, what);
}
} // namespace

void writeReportText(const Report &report, llvm::raw_ostream &os) {
  const GraphAnalysis &after = report.after;
  const MeasuredRun *measured = report.measured ? &*report.measured : nullptr;
  os << llvm::formatv("opfuse report: @{0}\n", after.function);
  writeTarget(report.target, os);
  writePrecision(report, os);
  os << "\n";

  size_t nameWidth = 6;
  for (const KernelAnalysis &kernel : after.kernels)
    nameWidth = std::max(nameWidth, kernel.name.size());
  const size_t opsWidth = 24;
  os << llvm::formatv("{0} {1} {2,-14} {3,-13} {4,8} {5,9} {6,8} {7,10}",
                      padRight("kernel", nameWidth), padRight("ops", opsWidth),
                      "class", "bound", "FLOPs", "bytes", "FLOP/B", "pred us");
  if (measured)
    os << llvm::formatv(" {0,10} {1,10} {2,7}", "P50 us", "P99 us", "error");
  os << "\n";
  bool anyL2 = false;
  // Measurements are per launched kernel; collectives have none.
  size_t launched = 0;
  for (const KernelAnalysis &kernel : after.kernels) {
    const size_t index = kernel.collective ? SIZE_MAX : launched++;
    const Prediction &p = kernel.prediction;
    anyL2 |= p.fitsInL2;
    os << llvm::formatv(
        "{0} {1} {2,-14} {3,-13} {4,8} {5,9} {6,8:F2} {7,9:F2}{8}",
        padRight(kernel.name, nameWidth),
        padRight(opList(kernel.ops, opsWidth), opsWidth), kernel.opClass,
        boundName(p.bound), siCount(kernel.work.flops),
        siBytes(kernel.work.bytes), kernel.work.intensity(), p.seconds() * 1e6,
        p.fitsInL2 ? "*"
        : measured ? " "
                   : "");
    if (measured && !kernel.collective && index < measured->kernels.size()) {
      const KernelMeasurement &m = measured->kernels[index];
      os << llvm::formatv(" {0,10:F2} {1,10:F2} {2,6:F1}%", m.p50, m.p99,
                          100 * predictionError(p.seconds() * 1e6, m.p50));
    }
    os << "\n";
  }
  if (anyL2)
    os << "  * the kernel's bytes fit in the L2: costed at L2 "
          "bandwidth\n";

  const GraphAnalysis &before = report.before;
  os << "\ntotals              before fusion      after fusion\n";
  os << llvm::formatv(
      "  kernels           {0,-18} {1}{2}\n", before.kernels.size(),
      after.kernels.size(),
      ratio(before.kernels.size(), after.kernels.size(), "fewer"));
  os << llvm::formatv("  bytes moved       {0,-18} {1}{2}\n",
                      siBytes(before.bytes()), siBytes(after.bytes()),
                      ratio(before.bytes(), after.bytes(), "fewer"));
  os << llvm::formatv("  FLOPs             {0,-18} {1}\n",
                      siCount(before.flops()), siCount(after.flops()));
  os << llvm::formatv("  predicted         {0,-18} {1}{2}\n",
                      llvm::formatv("{0:F2} us", before.seconds() * 1e6).str(),
                      llvm::formatv("{0:F2} us", after.seconds() * 1e6).str(),
                      ratio(before.seconds(), after.seconds(), "faster"));
  if (after.collectiveSteps() > 0 && after.overlappedSteps() == 0)
    os << llvm::formatv(
        "  communication     {0:F2} us of the {1:F2} us predicted ({2:F1}%), "
        "{3} collective step(s); none hidden: collectives run on the "
        "kernels' stream\n",
        after.collectiveSeconds() * 1e6, after.seconds() * 1e6,
        after.seconds() > 0 ? 100 * after.collectiveSeconds() / after.seconds()
                            : 0.0,
        after.collectiveSteps());
  if (after.overlappedSteps() > 0)
    os << llvm::formatv(
        "  communication     {0:F2} us in {1} collective step(s), {2} beside "
        "the kernels: {3:F2} us hidden ({4:F1}%), the steps in a row would "
        "take {5:F2} us\n",
        after.collectiveSeconds() * 1e6, after.collectiveSteps(),
        after.overlappedSteps(), after.hiddenSeconds() * 1e6,
        after.collectiveSeconds() > 0
            ? 100 * after.hiddenSeconds() / after.collectiveSeconds()
            : 0.0,
        after.serialSeconds() * 1e6);
  if (measured && measured->serial)
    os << llvm::formatv(
        "  overlap measured  step by step P50 {0:F2} us, every step on the "
        "kernels' stream P50 {1:F2} us: {2:F2} us hidden (predicted "
        "{3:F2})\n",
        measured->stream.p50, measured->serial->p50,
        measured->serial->p50 - measured->stream.p50,
        after.hiddenSeconds() * 1e6);
  if (measured)
    os << llvm::formatv(
        "  measured on {0}: P50 {1:F2} us, P99 {2:F2} us (prediction error "
        "{3:F1}%)\n",
        measured->device, measured->total.p50, measured->total.p99,
        100 * predictionError(after.seconds() * 1e6, measured->total.p50));
  if (measured && measured->graph)
    os << llvm::formatv(
        "  launched as       one CUDA graph: P50 {0:F2} us; step by step: "
        "P50 {1:F2} us ({2})\n",
        measured->graph->p50, measured->stream.p50,
        measured->graph->p50 < measured->stream.p50
            ? llvm::formatv("the graph {0:F2}x faster",
                            measured->stream.p50 / measured->graph->p50)
                  .str()
            : std::string("the graph does not pay"));

  if (!report.memory)
    return;
  const MemorySummary &m = report.memory->summary;
  os << "\nmemory (one arena for the intermediates, fuse-plan-memory)\n";
  os << llvm::formatv(
      "  arena             {0} ({1} bytes): {2:F3}x the lower bound of {3}\n",
      siBytes(m.arenaBytes), m.arenaBytes,
      m.lowerBound ? double(m.arenaBytes) / m.lowerBound : 1.0,
      siBytes(m.lowerBound));
  os << llvm::formatv("  one per buffer    {0}{1}\n", siBytes(m.naiveBytes),
                      ratio(m.naiveBytes, m.arenaBytes, "the arena"));
  os << llvm::formatv("  plan              {0} kernel order, {1} placement, "
                      "in-place outputs: {2}\n",
                      m.order, m.placement, m.inPlaceHits);
  os << llvm::formatv("  caller's buffers  inputs {0}, constants {1}, "
                      "outputs {2}{3}\n",
                      siBytes(m.inputBytes), siBytes(m.constantBytes),
                      siBytes(m.outputBytes),
                      m.planOutputs ? " (outputs planned into the arena)" : "");
  const int64_t peak =
      m.arenaBytes + m.inputBytes + m.constantBytes + m.outputBytes;
  os << llvm::formatv("  device memory     {0} in all{1}\n", siBytes(peak),
                      measured
                          ? llvm::formatv(", {0} allocated by the runtime",
                                          siBytes(measured->allocatedBytes))
                                .str()
                          : std::string());
}

} // namespace opfuse
