//===- StreamSchedule.cpp - Which plan steps run beside the kernels -------===//
//
// The hazards are found on memory, not on values: the arena reuses bytes,
// so a kernel that writes a buffer the planner placed over a collective's
// dead input must still wait for the collective that reads it.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/StreamSchedule.h"

#include <algorithm>

namespace opfuse {
namespace {

/// The buffers a step reads or writes.
std::vector<int> stepBuffers(const LaunchPlan &plan, const PlanStep &step) {
  switch (step.kind) {
  case StepKind::Kernel: {
    const PlanKernel &kernel = plan.kernels[step.index];
    std::vector<int> buffers = kernel.args;
    for (const PlanTensorMap &map : kernel.tensorMaps)
      buffers.push_back(map.buffer);
    return buffers;
  }
  case StepKind::Copy:
    return {plan.copies[step.index].src, plan.copies[step.index].dst};
  case StepKind::Memset:
    return {plan.memsets[step.index].buffer};
  case StepKind::Collective:
    return {plan.collectives[step.index].input,
            plan.collectives[step.index].output};
  }
  return {};
}

/// Whether buffers `a` and `b` share a byte: the same buffer, or arena
/// ranges that intersect.
bool sharesMemory(const LaunchPlan &plan, int a, int b) {
  if (a == b)
    return true;
  const PlanBuffer &x = plan.buffers[a], &y = plan.buffers[b];
  if (x.offset < 0 || y.offset < 0)
    return false;
  return x.offset < y.offset + y.bytes() && y.offset < x.offset + x.bytes();
}

bool runsBeside(const LaunchPlan &plan, const PlanStep &step) {
  return step.kind == StepKind::Collective &&
         plan.collectives[step.index].overlapSms > 0;
}

} // namespace

bool StreamSchedule::overlaps() const {
  return std::find(beside.begin(), beside.end(), true) != beside.end();
}

StreamSchedule scheduleStreams(const LaunchPlan &plan) {
  StreamSchedule schedule;
  const size_t steps = plan.steps.size();
  schedule.beside.assign(steps, false);
  schedule.waits.assign(steps, {});
  // Steps beside the kernels that the kernels' stream has not waited for.
  std::vector<size_t> inFlight;
  for (size_t s = 0; s < steps; ++s) {
    const PlanStep &step = plan.steps[s];
    if (runsBeside(plan, step)) {
      schedule.beside[s] = true;
      inFlight.push_back(s);
      continue;
    }
    const bool collective = step.kind == StepKind::Collective;
    const std::vector<int> buffers = stepBuffers(plan, step);
    std::vector<size_t> stillInFlight;
    for (size_t earlier : inFlight) {
      bool conflict = collective;
      for (int mine : buffers)
        for (int theirs : stepBuffers(plan, plan.steps[earlier]))
          conflict = conflict || sharesMemory(plan, mine, theirs);
      if (conflict)
        schedule.waits[s].push_back(earlier);
      else
        stillInFlight.push_back(earlier);
    }
    inFlight = std::move(stillInFlight);
  }
  schedule.joinAtEnd = std::move(inFlight);
  return schedule;
}

int overlapCtas(const LaunchPlan &plan) {
  int ctas = 0;
  for (const PlanCollective &collective : plan.collectives)
    ctas = std::max(ctas, collective.overlapSms);
  return ctas;
}

} // namespace opfuse
