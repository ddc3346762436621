//===- StreamSchedule.h - Steps beside the kernels' stream ------*- C++ -*-===//
//
// A plan runs on the kernels' stream, in order, except its collectives with
// an `overlap_sms` (the chunks of a windowed layer): those run on a stream
// of their own, and the kernels' stream waits for one only before the
// first later step that touches its memory. Plain data, so that the
// runtime and its tests share one answer.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_STREAMSCHEDULE_H
#define OPFUSE_RUNTIME_STREAMSCHEDULE_H

#include "opfuse/Runtime/LaunchPlan.h"

#include <cstddef>
#include <vector>

namespace opfuse {

struct StreamSchedule {
  /// Per step: whether it runs beside the kernels. It starts once every
  /// step queued before it is done (the kernels' stream forks there).
  std::vector<bool> beside;
  /// Per step: the steps beside the kernels that must finish before it
  /// starts, because it reads or writes memory they read or write (arena
  /// ranges that intersect, or the same buffer), or because it is a
  /// collective on the kernels' stream (NCCL orders a communicator's
  /// calls).
  std::vector<std::vector<size_t>> waits;
  /// Steps beside the kernels that no later step waited for: the run
  /// joins them at its end.
  std::vector<size_t> joinAtEnd;
  /// Whether any step runs beside the kernels.
  bool overlaps() const;
};

/// The schedule of `plan`'s steps on two streams. A collective runs beside
/// the kernels when it has overlap_sms (fuse-window-collectives sets it
/// only over several devices; on one, NCCL copies, which is how a single
/// GPU tests the two streams).
StreamSchedule scheduleStreams(const LaunchPlan &plan);

/// The CTAs NCCL may use so that collectives beside the kernels find free
/// SMs: the largest overlap_sms of the plan's collectives, 0 when none
/// overlaps.
int overlapCtas(const LaunchPlan &plan);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_STREAMSCHEDULE_H
