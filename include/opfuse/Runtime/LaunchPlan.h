//===- LaunchPlan.h - What the runtime needs to run a model -----*- C++ -*-===//
//
// The launch plan: buffers and kernels in order, as written by opt-fuse
// --emit=plan and read by opfuse-run. Plain C++ and llvm::json only, so a
// deployment runs plans without MLIR. docs/plan-format.md is its reference.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_LAUNCHPLAN_H
#define OPFUSE_RUNTIME_LAUNCHPLAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// Element types a buffer can hold, by their MLIR names.
enum class DType { F32, F16, BF16, I32, I64, I1 };

llvm::StringRef dtypeName(DType dtype);
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes one element takes in device memory (i1 takes a byte).
int64_t dtypeBytes(DType dtype);

enum class BufferRole { Input, Output, Intermediate, Constant };
llvm::StringRef roleName(BufferRole role);

struct PlanBuffer {
  int id = 0;
  /// The value it holds, for people: "arg0", "result0", "k0.out1".
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  BufferRole role = BufferRole::Intermediate;
  /// The contents of a constant buffer, as stored on the device.
  std::vector<uint8_t> data;
  /// Offset in the arena (a multiple of 256), or -1 for a buffer allocated
  /// on its own (inputs, constants, outputs the caller owns).
  int64_t offset = -1;
  /// Inputs only: seeded values are uniform in [-seedRange, seedRange)
  /// (smaller for weights, InputRanges.h).
  double seedRange = 2.0;
  int64_t elements() const;
  int64_t bytes() const { return elements() * dtypeBytes(dtype); }
};

/// A TMA tensor map the runtime encodes for a kernel (cuTensorMapEncodeTiled)
/// over buffer `buffer`: `dims` innermost first, the byte `strides` of all
/// but the innermost dimension, the `box` one copy fills; 128-byte swizzle,
/// zero fill outside the tensor. The kernel gets a device pointer to it.
struct PlanTensorMap {
  int buffer = 0;
  std::vector<int64_t> dims, strides, box;
  /// Bytes from the buffer's start to the map's first element.
  int64_t offset = 0;
};

struct PlanKernel {
  /// The step's name (reports, --bench, buffer names).
  std::string name;
  /// The PTX function it launches, when another step's (identical kernels
  /// are compiled once); empty: `name`.
  std::string entry;
  const std::string &entryName() const { return entry.empty() ? name : entry; }
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Dynamic shared memory per block, in bytes.
  int64_t sharedBytes = 0;
  /// A GEMM kernel's tiling as --matmul-tiling spells it; empty otherwise.
  std::string tiling;
  /// A persistent wgmma kernel's schedule ("cooperative",
  /// "warp-specialized", "ping-pong"); empty otherwise.
  std::string schedule;
  /// Buffer ids, in the kernel's parameter order (inputs, then outputs).
  std::vector<int> args;
  /// How many of `args` are inputs.
  int numInputs = 0;
  /// Tensor maps, passed after `args` in this order.
  std::vector<PlanTensorMap> tensorMaps;
  /// A split-K GEMM (splitK > 1): its blocks store `workspaceBytes` of f32
  /// partial tiles and count finished splits in `splitCounters` i32
  /// counters that are zero when it starts and when it ends. The runtime
  /// passes a workspace and the counters (zeroed once) after `args`.
  int64_t splitK = 1;
  int64_t workspaceBytes = 0;
  int64_t splitCounters = 0;
  /// The kernel waits for the grids before it (griddepcontrol.wait, sm_90)
  /// before it reads what they wrote or writes anything: the runtime may
  /// launch it while the kernel before it still runs (programmatic
  /// dependent launch), so that its launch and what it does before the
  /// wait (index arithmetic, copies of the model's inputs) overlap that
  /// kernel's tail.
  bool earlyLaunch = false;
  /// Device-memory bytes the kernel reads and writes, and its FLOPs.
  int64_t bytes = 0;
  int64_t flops = 0;
  /// The fuse ops the kernel computes, for the report.
  int numOps = 0;
  /// The cost model's latency for it on the compile target (0: none).
  double predictedUs = 0;
};

/// A device-to-device copy of buffer `src` into buffer `dst` (of as many
/// bytes).
struct PlanCopy {
  int src = 0, dst = 0;
};

/// Every byte of buffer `buffer` set to `value`.
struct PlanMemset {
  int buffer = 0;
  int value = 0;
};

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter };
llvm::StringRef collectiveName(CollectiveKind kind);

/// A collective over `devices` GPUs, one process each: all_reduce combines
/// `input` into `output` (the same shape); all_gather concatenates every
/// device's `input` into `output` (devices times larger); reduce_scatter
/// combines and leaves each device its slice (`input` devices times
/// larger).
struct PlanCollective {
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// "sum" or "max".
  std::string reduce = "sum";
  int input = 0, output = 0;
  int devices = 1;
  /// 0: on the kernels' stream, in order with them. Otherwise it runs on a
  /// stream of its own beside the kernels after it that do not touch its
  /// buffers, with NCCL limited to this many CTAs (the SMs the GEMMs
  /// around it leave free): a chunk of a windowed layer
  /// (fuse-window-collectives).
  int overlapSms = 0;
};

enum class StepKind { Kernel, Copy, Memset, Collective };

/// One step of the plan: the `index`-th entry of the plan's list of its
/// kind (kernels, copies, memsets, collectives).
struct PlanStep {
  StepKind kind = StepKind::Kernel;
  size_t index = 0;
};

/// The one allocation intermediates live in, and how it compares with the
/// max-live lower bound and with one allocation per buffer.
struct PlanArena {
  int64_t bytes = 0, lowerBound = 0, naiveBytes = 0, inPlace = 0;
};

struct LaunchPlan {
  /// Version 3 lists steps (kernels, copies, memsets, collectives) in
  /// order; version 2 added tensor maps; versions 1 and 2 (kernels only)
  /// still load.
  static constexpr int kFormatVersion = 3;
  int version = kFormatVersion;
  std::string function;
  PlanArena arena;
  std::vector<PlanBuffer> buffers;
  /// The steps' operands, by kind; `kernels` in launch order.
  std::vector<PlanKernel> kernels;
  std::vector<PlanCopy> copies;
  std::vector<PlanMemset> memsets;
  std::vector<PlanCollective> collectives;
  /// What runs, in order, on one stream.
  std::vector<PlanStep> steps;
  /// Buffer ids of the function's arguments and results, in order.
  std::vector<int> inputs;
  std::vector<int> outputs;
  /// Their names where the model gave them (an imported ONNX model's
  /// input and output names); empty: argN and resultN.
  std::vector<std::string> inputNames, outputNames;
  /// For an SPMD program (--devices N): the axis along which each input is
  /// one device's slice of a global tensor N times as long (the argument's
  /// fuse.shard), -1 where every device holds the whole tensor. Empty:
  /// every input replicated.
  std::vector<int64_t> inputShards;

  /// Input i's name: the model's, else argN.
  std::string inputName(size_t i) const;
  /// Output i's name: the model's, else resultN.
  std::string outputName(size_t i) const;
  /// Input i's shard axis, or -1 when it is replicated.
  int64_t inputShard(size_t i) const;
  /// The most devices one of the plan's collectives spans, or 1 without
  /// collectives: the devices an SPMD run of it needs.
  int devicesSpanned() const;
};

/// Why `map` cannot view `buffer` (element type, rank, limits of the TMA
/// unit, or a view reaching past the buffer), or nothing when it can.
std::optional<std::string> checkTensorMap(const PlanTensorMap &map,
                                          const PlanBuffer &buffer);

/// Appends `kernel` to the plan as its next step.
void appendKernelStep(LaunchPlan &plan, PlanKernel kernel);

/// Writes `plan` as JSON (docs/plan-format.md).
void writePlanJson(const LaunchPlan &plan, llvm::raw_ostream &os);

/// Parses a plan and rejects what cannot run (docs/plan-format.md): an
/// unsupported version, unknown step kinds or buffer roles, references to
/// missing buffers, negative shapes or offsets, launches outside CUDA's
/// limits, arena buffers that overlap while both are live, and more. The
/// error names the field.
llvm::Expected<LaunchPlan> parsePlanJson(llvm::StringRef text);

/// Why `plan` cannot run with `ptx`: a kernel that is not an `.entry` of
/// it; nothing when every kernel is.
std::optional<std::string> checkPlanKernels(const LaunchPlan &plan,
                                            llvm::StringRef ptx);

/// Why `plan` cannot run on a device whose blocks hold at most
/// `maxSharedBytes` of dynamic shared memory; nothing when it can.
std::optional<std::string> checkPlanSharedMemory(const LaunchPlan &plan,
                                                 int64_t maxSharedBytes);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_LAUNCHPLAN_H
