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
};

struct PlanKernel {
  std::string name;
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
  /// Device-memory bytes the kernel reads and writes, and its FLOPs.
  int64_t bytes = 0;
  int64_t flops = 0;
  /// The fuse ops the kernel computes, for the report.
  int numOps = 0;
  /// The cost model's latency for it on the compile target (0: none).
  double predictedUs = 0;
};

/// The one allocation intermediates live in, and how it compares with the
/// max-live lower bound and with one allocation per buffer.
struct PlanArena {
  int64_t bytes = 0, lowerBound = 0, naiveBytes = 0, inPlace = 0;
};

struct LaunchPlan {
  /// Version 2 added tensor maps; version 1 plans (none) still load.
  static constexpr int kFormatVersion = 2;
  int version = kFormatVersion;
  std::string function;
  PlanArena arena;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanKernel> kernels;
  /// Buffer ids of the function's arguments and results, in order.
  std::vector<int> inputs;
  std::vector<int> outputs;
};

/// Why `map` cannot view `buffer` (element type, rank, limits of the TMA
/// unit, or a view reaching past the buffer), or nothing when it can.
std::optional<std::string> checkTensorMap(const PlanTensorMap &map,
                                          const PlanBuffer &buffer);

/// Writes `plan` as JSON (docs/plan-format.md).
void writePlanJson(const LaunchPlan &plan, llvm::raw_ostream &os);

/// Parses a plan, checking its version and every buffer reference.
llvm::Expected<LaunchPlan> parsePlanJson(llvm::StringRef text);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_LAUNCHPLAN_H
