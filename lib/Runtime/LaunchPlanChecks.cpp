//===- LaunchPlanChecks.cpp - What a launch plan must satisfy to run ------===//
//
// The checks of a parsed plan: every reference names a buffer, every
// launch is within CUDA's limits, every step's buffers fit what it does,
// and no two arena buffers share bytes while both are live (the arena plan
// is only valid in the steps' order). Also the checks against the PTX and
// the device, which the plan alone cannot answer.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/LaunchPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

namespace opfuse {
namespace {

/// The most dynamic shared memory a block of any current GPU may use:
/// 227 KiB (sm_90); a device's own limit is checked before launching.
constexpr int64_t kMaxSharedBytes = 227 * 1024;
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
/// The most SMs a collective beside the kernels may take (the compiler's
/// fuse.overlap_sms bound; the runtime does not link the dialect).
constexpr int kMaxPlanOverlapSms = 64;

llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid launch plan: " + message);
}

llvm::Error checkArenaOffsets(const LaunchPlan &plan) {
  for (const PlanBuffer &buffer : plan.buffers) {
    if (buffer.offset < 0)
      continue;
    if (buffer.role == BufferRole::Input || buffer.role == BufferRole::Constant)
      return planError("buffer #" + llvm::Twine(buffer.id) + " is an " +
                       roleName(buffer.role) + " and cannot live in the arena");
    if (buffer.offset % 256 != 0 ||
        buffer.offset + buffer.bytes() > plan.arena.bytes)
      return planError("buffer #" + llvm::Twine(buffer.id) + " at offset " +
                       llvm::Twine(buffer.offset) +
                       " is misaligned or outside the arena of " +
                       llvm::Twine(plan.arena.bytes) + " bytes");
  }
  return llvm::Error::success();
}

llvm::Error checkLaunch(const PlanKernel &kernel) {
  const std::string where = "kernel '" + kernel.name + "'";
  const std::array<int64_t, 3> &g = kernel.grid, &b = kernel.block;
  if (llvm::any_of(g, [](int64_t v) { return v < 1; }) || g[0] > kMaxGridX ||
      g[1] > kMaxGridYZ || g[2] > kMaxGridYZ)
    return planError(where +
                     " has a \"grid\" outside CUDA's 1..2^31-1 x 1..65535 x "
                     "1..65535 blocks");
  if (llvm::any_of(b, [](int64_t v) { return v < 1; }) || b[0] > 1024 ||
      b[1] > 1024 || b[2] > 64 || b[0] * b[1] * b[2] > 1024)
    return planError(where + " has a \"block\" outside CUDA's limit of 1024 "
                             "threads (x, y <= 1024, z <= 64)");
  if (kernel.sharedBytes < 0 || kernel.sharedBytes > kMaxSharedBytes)
    return planError(where + " asks for " + llvm::Twine(kernel.sharedBytes) +
                     " bytes of \"shared_bytes\"; a block has 0 to " +
                     llvm::Twine(kMaxSharedBytes));
  if (kernel.numInputs < 0 ||
      kernel.numInputs > static_cast<int>(kernel.args.size()))
    return planError(where + " has \"num_inputs\" " +
                     llvm::Twine(kernel.numInputs) + " for " +
                     llvm::Twine(kernel.args.size()) + " args");
  if (kernel.splitK != 1) {
    // Each split stores at least one f32 per counted tile; the bound keeps
    // the runtime's one workspace allocation sane.
    if (kernel.splitK < 2 || kernel.splitK > 256 || kernel.splitCounters < 1 ||
        kernel.splitCounters * kernel.splitK > g[0] ||
        kernel.workspaceBytes < 4 * kernel.splitK * kernel.splitCounters ||
        kernel.workspaceBytes > (int64_t(1) << 40))
      return planError(where + " has a \"split_k\" the runtime cannot "
                               "provide: splits 2 to 256, 1 to grid / splits "
                               "counters, and a workspace of at least 4 "
                               "bytes per split and counter, at most 1 TiB");
  }
  return llvm::Error::success();
}

llvm::Error checkKernel(const LaunchPlan &plan, const PlanKernel &kernel) {
  if (llvm::Error error = checkLaunch(kernel))
    return error;
  const int numBuffers = plan.buffers.size();
  for (int arg : kernel.args)
    if (arg < 0 || arg >= numBuffers)
      return planError("kernel '" + kernel.name + "' uses buffer " +
                       llvm::Twine(arg) + ", which does not exist");
  llvm::ArrayRef<int> inputs =
      llvm::ArrayRef(kernel.args).take_front(kernel.numInputs);
  for (auto [index, map] : llvm::enumerate(kernel.tensorMaps)) {
    if (map.buffer < 0 || map.buffer >= numBuffers ||
        !llvm::is_contained(inputs, map.buffer))
      return planError("a tensor map of kernel '" + kernel.name +
                       "' views buffer " + llvm::Twine(map.buffer) +
                       ", which is not one of its inputs");
    if (std::optional<std::string> why =
            checkTensorMap(map, plan.buffers[map.buffer]))
      return planError("tensor map #" + llvm::Twine(index) + " of kernel '" +
                       kernel.name + "': " + *why);
  }
  return llvm::Error::success();
}

llvm::Error checkCollective(const LaunchPlan &plan, const PlanCollective &c,
                            size_t position) {
  const std::string where =
      ("step #" + llvm::Twine(position) + " (" + collectiveName(c.kind) + ")")
          .str();
  const int numBuffers = plan.buffers.size();
  if (c.input < 0 || c.input >= numBuffers || c.output < 0 ||
      c.output >= numBuffers)
    return planError(where + " names a buffer that does not exist");
  if (c.devices < 1)
    return planError(where + " needs \"devices\" of at least 1");
  if (c.overlapSms < 0 || c.overlapSms > kMaxPlanOverlapSms)
    return planError(where +
                     " has \"overlap_sms\": " + llvm::Twine(c.overlapSms) +
                     "; expected 0 to " + llvm::Twine(kMaxPlanOverlapSms));
  if (c.reduce != "sum" && c.reduce != "max")
    return planError(where + " has \"reduce\": \"" + c.reduce +
                     "\"; expected sum or max");
  const PlanBuffer &in = plan.buffers[c.input], &out = plan.buffers[c.output];
  const int64_t factor = c.devices;
  const bool sizesFit =
      in.dtype == out.dtype &&
      (c.kind == CollectiveKind::AllReduce ? in.bytes() == out.bytes()
       : c.kind == CollectiveKind::AllGather
           ? out.bytes() == in.bytes() * factor
           : in.bytes() == out.bytes() * factor);
  if (!sizesFit)
    return planError(where + ": \"input\" and \"output\" do not fit (same "
                             "dtype; all_gather's output and "
                             "reduce_scatter's input are devices times "
                             "larger)");
  return llvm::Error::success();
}

/// What each step reads and writes.
void stepBuffers(const LaunchPlan &plan, const PlanStep &step,
                 std::vector<int> &reads, std::vector<int> &writes) {
  reads.clear();
  writes.clear();
  switch (step.kind) {
  case StepKind::Kernel: {
    const PlanKernel &kernel = plan.kernels[step.index];
    for (auto [index, arg] : llvm::enumerate(kernel.args))
      (static_cast<int>(index) < kernel.numInputs ? reads : writes)
          .push_back(arg);
    return;
  }
  case StepKind::Copy:
    reads.push_back(plan.copies[step.index].src);
    writes.push_back(plan.copies[step.index].dst);
    return;
  case StepKind::Memset:
    writes.push_back(plan.memsets[step.index].buffer);
    return;
  case StepKind::Collective:
    reads.push_back(plan.collectives[step.index].input);
    writes.push_back(plan.collectives[step.index].output);
    return;
  }
}

/// No two arena buffers share bytes while both are live: a buffer lives
/// from the step that first writes it to the last that reads it (an
/// output to the end). A step may write a buffer over one it reads for
/// the last time at the same offset (in place).
llvm::Error checkLiveness(const LaunchPlan &plan) {
  const int steps = plan.steps.size();
  std::vector<std::pair<int, int>> life(plan.buffers.size(), {-1, -1});
  std::vector<int> reads, writes;
  for (int s = 0; s < steps; ++s) {
    stepBuffers(plan, plan.steps[s], reads, writes);
    for (int id : writes)
      if (life[id].first < 0)
        life[id] = {s, s};
    for (int id : reads)
      if (life[id].first >= 0)
        life[id].second = std::max(life[id].second, s);
  }
  for (int id : plan.outputs)
    if (life[id].first >= 0)
      life[id].second = steps - 1;
  std::vector<int> arena;
  for (const PlanBuffer &buffer : plan.buffers)
    if (buffer.offset >= 0 && life[buffer.id].first >= 0 && buffer.bytes() > 0)
      arena.push_back(buffer.id);
  for (auto [i, a] : llvm::enumerate(arena))
    for (int b : llvm::ArrayRef(arena).drop_front(i + 1)) {
      const PlanBuffer &x = plan.buffers[a], &y = plan.buffers[b];
      const bool shareBytes =
          x.offset < y.offset + y.bytes() && y.offset < x.offset + x.bytes();
      const auto [xFirst, xLast] = life[a];
      const auto [yFirst, yLast] = life[b];
      if (!shareBytes || xLast < yFirst || yLast < xFirst)
        continue;
      const bool inPlace =
          x.offset == y.offset && (xLast == yFirst || yLast == xFirst);
      if (!inPlace)
        return planError(
            "buffers #" + llvm::Twine(a) + " and #" + llvm::Twine(b) +
            " share arena bytes while both are live (steps " +
            llvm::Twine(xFirst) + "-" + llvm::Twine(xLast) + " and " +
            llvm::Twine(yFirst) + "-" + llvm::Twine(yLast) + ")");
    }
  return llvm::Error::success();
}

} // namespace

llvm::Error checkParsedPlan(const LaunchPlan &plan) {
  if (llvm::Error error = checkArenaOffsets(plan))
    return error;
  const int numBuffers = plan.buffers.size();
  auto validId = [&](int id) { return id >= 0 && id < numBuffers; };
  for (const PlanKernel &kernel : plan.kernels)
    if (llvm::Error error = checkKernel(plan, kernel))
      return error;
  for (auto [position, step] : llvm::enumerate(plan.steps)) {
    const std::string where = ("step #" + llvm::Twine(position)).str();
    if (step.kind == StepKind::Copy) {
      const PlanCopy &copy = plan.copies[step.index];
      if (!validId(copy.src) || !validId(copy.dst) || copy.src == copy.dst ||
          plan.buffers[copy.src].bytes() != plan.buffers[copy.dst].bytes())
        return planError(where + " (copy) needs two buffers of as many bytes "
                                 "as \"src\" and \"dst\"");
    } else if (step.kind == StepKind::Memset) {
      const PlanMemset &memset = plan.memsets[step.index];
      if (!validId(memset.buffer) || memset.value < 0 || memset.value > 255)
        return planError(where + " (memset) needs an existing \"buffer\" and "
                                 "a byte \"value\" (0 to 255)");
    } else if (step.kind == StepKind::Collective) {
      if (llvm::Error error =
              checkCollective(plan, plan.collectives[step.index], position))
        return error;
    }
  }
  for (int id : plan.inputs)
    if (!validId(id))
      return planError("input buffer " + llvm::Twine(id) + " does not exist");
  for (int id : plan.outputs)
    if (!validId(id))
      return planError("output buffer " + llvm::Twine(id) + " does not exist");
  for (auto [i, axis] : llvm::enumerate(plan.inputShards)) {
    const int64_t rank = plan.buffers[plan.inputs[i]].shape.size();
    if (axis < -1 || axis >= rank)
      return planError("input #" + llvm::Twine(i) + "'s shard axis " +
                       llvm::Twine(axis) + " is not -1 or an axis of its " +
                       llvm::Twine(rank) + "-d buffer");
  }
  return checkLiveness(plan);
}

std::optional<std::string> checkPlanKernels(const LaunchPlan &plan,
                                            llvm::StringRef ptx) {
  for (const PlanKernel &kernel : plan.kernels) {
    const std::string &entry = kernel.entryName();
    size_t found = llvm::StringRef::npos;
    for (size_t at = ptx.find(".entry " + entry);
         at != llvm::StringRef::npos && found == llvm::StringRef::npos;
         at = ptx.find(".entry " + entry, at + 1)) {
      llvm::StringRef rest = ptx.drop_front(at + 7 + entry.size()).ltrim(" \t");
      if (rest.starts_with("("))
        found = at;
    }
    if (found == llvm::StringRef::npos && entry == kernel.name)
      return "kernel '" + kernel.name + "' is not an .entry of the PTX";
    if (found == llvm::StringRef::npos)
      return "kernel '" + kernel.name + "' launches '" + entry +
             "', which is not an .entry of the PTX";
    // Launched early, a kernel without the wait would race the one before.
    llvm::StringRef body = ptx.drop_front(found + 7);
    body = body.take_front(body.find(".entry "));
    if (kernel.earlyLaunch && !body.contains("griddepcontrol.wait"))
      return "kernel '" + kernel.name + "' has early_launch but its PTX '" +
             entry +
             "' never waits for the kernels before it "
             "(griddepcontrol.wait)";
  }
  return std::nullopt;
}

std::optional<std::string> checkPlanSharedMemory(const LaunchPlan &plan,
                                                 int64_t maxSharedBytes) {
  for (const PlanKernel &kernel : plan.kernels)
    if (kernel.sharedBytes > maxSharedBytes)
      return "kernel '" + kernel.name + "' needs " +
             std::to_string(kernel.sharedBytes) +
             " bytes of shared memory per block; this device allows " +
             std::to_string(maxSharedBytes);
  return std::nullopt;
}

} // namespace opfuse
