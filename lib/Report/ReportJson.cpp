//===- ReportJson.cpp - The report as JSON --------------------------------===//
//
// The schema is docs/report-format.md; bump kVersion when a field changes
// meaning or goes away (adding one does not).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Report/Report.h"

#include "llvm/Support/FormatVariadic.h"

namespace opfuse {

namespace {
constexpr int kVersion = 1;

llvm::json::Object graphTotals(const GraphAnalysis &graph) {
  return llvm::json::Object{
      {"kernels", static_cast<int64_t>(graph.kernels.size())},
      {"bytes", graph.bytes()},
      {"flops", graph.flops()},
      {"predicted_us", graph.seconds() * 1e6},
  };
}

llvm::json::Object kernelToJson(const KernelAnalysis &kernel,
                                const KernelMeasurement *measured) {
  const Prediction &p = kernel.prediction;
  llvm::json::Array ops;
  for (const std::string &op : kernel.ops)
    ops.push_back(op);
  llvm::json::Object object{
      {"name", kernel.name},
      {"location", kernel.location},
      {"ops", std::move(ops)},
      {"class", kernel.opClass},
      {"bound", boundName(p.bound)},
      {"flops", kernel.work.flops},
      {"bytes", kernel.work.bytes},
      {"link_bytes", kernel.work.linkBytes},
      {"intensity", kernel.work.intensity()},
      {"fits_in_l2", p.fitsInL2},
      {"predicted_us", p.seconds() * 1e6},
      {"predicted_parts_us",
       llvm::json::Object{{"compute", p.computeSeconds * 1e6},
                          {"memory", p.memorySeconds * 1e6},
                          {"link", p.linkSeconds * 1e6},
                          {"tail", p.tailSeconds * 1e6},
                          {"launch", p.launchSeconds * 1e6}}},
  };
  if (measured)
    object["measured"] = llvm::json::Object{
        {"p50_us", measured->p50},
        {"p99_us", measured->p99},
        {"error", predictionError(p.seconds() * 1e6, measured->p50)}};
  return object;
}
} // namespace

llvm::json::Value reportToJson(const Report &report) {
  const MeasuredRun *measured = report.measured ? &*report.measured : nullptr;
  llvm::json::Array kernels;
  // Measurements are per launched kernel; collectives have none.
  size_t launched = 0;
  for (const KernelAnalysis &kernel : report.after.kernels) {
    const size_t index = kernel.collective ? SIZE_MAX : launched++;
    kernels.push_back(
        kernelToJson(kernel, measured && index < measured->kernels.size()
                                 ? &measured->kernels[index]
                                 : nullptr));
  }
  llvm::json::Object object{
      {"format", "opfuse-report"},
      {"version", kVersion},
      {"function", report.after.function},
      {"target", targetToJson(report.target)},
      {"allow_tf32", report.allowTF32},
      {"before", graphTotals(report.before)},
      {"after", graphTotals(report.after)},
      {"kernels", std::move(kernels)},
  };
  if (report.after.collectiveSteps() > 0)
    object["communication"] = llvm::json::Object{
        {"steps", static_cast<int64_t>(report.after.collectiveSteps())},
        {"predicted_us", report.after.collectiveSeconds() * 1e6},
        {"share",
         report.after.seconds() > 0
             ? report.after.collectiveSeconds() / report.after.seconds()
             : 0.0},
        {"overlapped_steps",
         static_cast<int64_t>(report.after.overlappedSteps())},
        {"hidden_us", report.after.hiddenSeconds() * 1e6},
        {"serial_us", report.after.serialSeconds() * 1e6}};
  if (report.measured && report.measured->serial)
    object["overlap_measured"] =
        llvm::json::Object{{"stream_p50_us", report.measured->stream.p50},
                           {"serial_p50_us", report.measured->serial->p50},
                           {"hidden_us", report.measured->serial->p50 -
                                             report.measured->stream.p50}};
  if (report.memory) {
    const MemorySummary &m = report.memory->summary;
    llvm::json::Array buffers;
    for (const PlannedBuffer &b : report.memory->buffers)
      buffers.push_back(llvm::json::Object{{"name", b.name},
                                           {"first_step", b.first},
                                           {"last_step", b.last},
                                           {"offset", b.offset},
                                           {"bytes", b.bytes}});
    llvm::json::Object memory{
        {"arena_bytes", m.arenaBytes},
        {"lower_bound", m.lowerBound},
        {"naive_bytes", m.naiveBytes},
        {"arena_over_bound",
         m.lowerBound ? double(m.arenaBytes) / m.lowerBound : 1.0},
        {"in_place", m.inPlaceHits},
        {"order", m.order},
        {"placement", m.placement},
        {"input_bytes", m.inputBytes},
        {"constant_bytes", m.constantBytes},
        {"output_bytes", m.outputBytes},
        {"plan_outputs", m.planOutputs},
        {"buffers", std::move(buffers)},
    };
    if (measured)
      memory["allocated_bytes"] = measured->allocatedBytes;
    object["memory"] = std::move(memory);
  }
  if (measured && measured->checks)
    object["check"] = outputChecksToJson(*measured->checks);
  if (measured)
    object["measured"] = llvm::json::Object{
        {"device", measured->device},
        {"p50_us", measured->total.p50},
        {"p99_us", measured->total.p99},
        {"error",
         predictionError(report.after.seconds() * 1e6, measured->total.p50)},
        {"stream_p50_us", measured->stream.p50},
        {"stream_p99_us", measured->stream.p99}};
  if (measured && measured->graph) {
    llvm::json::Object &run = *object["measured"].getAsObject();
    run["graph_p50_us"] = measured->graph->p50;
    run["graph_p99_us"] = measured->graph->p99;
  }
  return llvm::json::Value(std::move(object));
}

void writeReportJson(const Report &report, llvm::raw_ostream &os) {
  os << llvm::formatv("{0:2}", reportToJson(report)) << "\n";
}

} // namespace opfuse
