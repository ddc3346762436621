//===- MemoryReport.cpp - The memory section and its timeline -------------===//
//
// Reads the plan fuse-plan-memory stored in the IR and draws it: one column
// per kernel step, one rectangle per arena buffer from the kernel that
// writes it to the last that reads it, at its offset.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Report/Report.h"

#include "Format.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace opfuse {

std::optional<MemoryReport> buildMemoryReport(mlir::func::FuncOp func) {
  std::optional<MemorySummary> summary = readMemorySummary(func);
  if (!summary)
    return std::nullopt;
  FunctionBuffers buffers = buildFunctionBuffers(func, summary->planOutputs);
  std::optional<MemoryPlan> plan = readMemoryPlan(func, buffers);
  if (!plan)
    return std::nullopt;
  MemoryReport report;
  report.summary = *summary;
  report.steps = buffers.graph.kernels.size();
  for (size_t b = 0; b < buffers.graph.buffers.size(); ++b)
    if (plan->offset[b] >= 0)
      report.buffers.push_back({buffers.graph.buffers[b].name,
                                plan->lifetime[b].first,
                                plan->lifetime[b].second, plan->offset[b],
                                buffers.graph.buffers[b].bytes});
  return report;
}

namespace {
constexpr double kWidth = 960, kHeight = 560, kEmptyHeight = 104;
constexpr double kLeft = 90, kRight = 30, kTop = 60, kBottom = 60;

const char *kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                         "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
} // namespace

void writeMemorySvg(const Report &report, llvm::raw_ostream &os) {
  // Without buffers the picture is its sentences: a short page, not a
  // plot-sized blank one.
  const bool plot = report.memory && !report.memory->buffers.empty();
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                      "font-family=\"sans-serif\" font-size=\"12\">\n",
                      kWidth, plot ? kHeight : kEmptyHeight);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const std::string function = report::xmlEscape(report.after.function);
  if (!report.memory) {
    os << llvm::formatv("<text x=\"{0}\" y=\"40\">@{1}: no memory plan"
                        "</text>\n</svg>\n",
                        kLeft, function);
    return;
  }
  const MemoryReport &memory = *report.memory;
  const MemorySummary &s = memory.summary;
  os << llvm::formatv("<title>Memory plan of @{0}</title>\n", function);
  os << llvm::formatv(
      "<text x=\"{0}\" y=\"24\" font-size=\"16\">Memory plan: @{1}, arena "
      "{2} (lower bound {3}, {4:F3}x), {5} kernels in {6} order</text>\n",
      kLeft, function, report::siBytes(s.arenaBytes),
      report::siBytes(s.lowerBound),
      s.lowerBound ? double(s.arenaBytes) / s.lowerBound : 1.0, memory.steps,
      report::xmlEscape(s.order));
  os << llvm::formatv("<text x=\"{0}\" y=\"44\">naive (one allocation per "
                      "buffer) {1}; {2} outputs written in place</text>\n",
                      kLeft, report::siBytes(s.naiveBytes), s.inPlaceHits);
  if (memory.buffers.empty()) {
    // Nothing to draw: a sentence, not an empty plot with byte ticks.
    os << llvm::formatv(
        "<text class=\"empty\" x=\"{0}\" y=\"84\">No intermediate "
        "buffers: every kernel reads the function's inputs and writes its "
        "outputs, so the arena is empty.</text>\n</svg>\n",
        kLeft);
    return;
  }

  const double plotW = kWidth - kLeft - kRight,
               plotH = kHeight - kTop - kBottom;
  const int steps = std::max(1, memory.steps);
  const double top = std::max<double>(1, std::max(s.arenaBytes, s.lowerBound));
  auto x = [&](double step) { return kLeft + step / steps * plotW; };
  auto y = [&](double bytes) {
    return kHeight - kBottom - bytes / top * plotH;
  };

  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                      "fill=\"none\" stroke=\"black\"/>\n",
                      kLeft, kTop, plotW, plotH);
  for (int step = 0; step < steps; ++step)
    os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\" "
                        "font-size=\"10\">{2}</text>\n",
                        x(step + 0.5), kHeight - kBottom + 14, step);
  os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">"
                      "kernel step (launch order)</text>\n",
                      kLeft + plotW / 2, kHeight - 20);
  for (int tick = 0; tick <= 4; ++tick) {
    double bytes = top * tick / 4;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" text-anchor=\"end\" "
                        "font-size=\"10\">{2}</text>\n",
                        kLeft - 6, y(bytes) + 4, report::siBytes(bytes));
  }
  for (auto [index, buffer] : llvm::enumerate(memory.buffers)) {
    double x0 = x(buffer.first), x1 = x(buffer.last + 1);
    double y0 = y(buffer.offset + buffer.bytes), y1 = y(buffer.offset);
    os << llvm::formatv(
        "<rect class=\"buffer\" x=\"{0:F1}\" y=\"{1:F1}\" width=\"{2:F1}\" "
        "height=\"{3:F1}\" fill=\"{4}\" fill-opacity=\"0.75\" "
        "stroke=\"white\"><title>{5}: {6} at offset {7}, steps {8}-{9}"
        "</title></rect>\n",
        x0, y0, std::max(1.0, x1 - x0), std::max(1.0, y1 - y0),
        kColors[index % 8], report::xmlEscape(buffer.name), buffer.bytes,
        buffer.offset, buffer.first, buffer.last);
    if (y1 - y0 > 14 && x1 - x0 > 60)
      os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\" font-size=\"10\" "
                          "fill=\"white\">{2}</text>\n",
                          x0 + 4, y0 + 12, report::xmlEscape(buffer.name));
  }
  os << llvm::formatv("<line class=\"lower-bound\" x1=\"{0}\" y1=\"{1:F1}\" "
                      "x2=\"{2}\" y2=\"{1:F1}\" stroke=\"#d62728\" "
                      "stroke-dasharray=\"6 4\" stroke-width=\"2\"/>\n",
                      kLeft, y(s.lowerBound), kLeft + plotW);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1:F1}\" text-anchor=\"end\" "
                      "fill=\"#d62728\">lower bound</text>\n",
                      kLeft + plotW - 4, y(s.lowerBound) - 4);
  os << "</svg>\n";
}

} // namespace opfuse
