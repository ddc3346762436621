//===- MemoryPlan.h - Kernel order, liveness and one arena ------*- C++ -*-===//
//
// Buffer planning on an abstract kernel graph (no MLIR, so random graphs of
// any size can be planned and checked): pick the kernel order with the
// lowest max-live lower bound among several memory-aware topological
// orders, let elementwise outputs take the storage of inputs that die in the
// same kernel, and assign arena offsets with a portfolio of placement
// heuristics. docs/memory-planning.md explains each step and its results.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_MEMORYPLAN_H
#define OPFUSE_ANALYSIS_MEMORYPLAN_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opfuse {

/// Arena offsets and sizes are multiples of this.
constexpr int64_t kArenaAlignment = 256;

struct KernelNode {
  /// Buffers the kernel reads and writes (ids into KernelGraph::buffers).
  std::vector<int> reads, writes;
  /// (output, input) pairs that may share storage if the input dies here:
  /// same bytes, and each element read before it is written by the thread
  /// that writes it (an elementwise kernel over equal layouts).
  std::vector<std::pair<int, int>> inPlace;
};

struct BufferNode {
  int64_t bytes = 0;
  /// Planned into the arena (intermediates; outputs with --plan-outputs).
  /// Graph inputs and constants are not: the caller owns them.
  bool inArena = true;
  /// For messages: "k3.out0".
  std::string name;
  /// A graph output: when in the arena it stays live to the last step,
  /// since the caller reads it after every kernel has run.
  bool liveToEnd = false;
};

/// Kernels in program order, which must be a topological order: a kernel
/// reads only buffers written by earlier kernels or by no kernel.
struct KernelGraph {
  std::vector<BufferNode> buffers;
  std::vector<KernelNode> kernels;
};

struct PlanOptions {
  /// Upper bound on the improvement search after the heuristics, when their
  /// best arena is more than 2% above the lower bound.
  int searchMilliseconds = 2000;
  /// Seed of that search, so a plan is reproducible.
  uint64_t seed = 1;
};

struct MemoryPlan {
  /// Kernel indices in launch order, and which candidate order it was.
  std::vector<int> order;
  std::string orderName;
  /// Per buffer: the storage it lives in (an in-place output shares its
  /// input's), its arena offset (-1 when not in the arena), and its live
  /// range in schedule steps [first, last], both inclusive.
  std::vector<int> storage;
  std::vector<int64_t> offset;
  std::vector<std::pair<int, int>> lifetime;
  /// Bytes: the arena, the max-live lower bound of the order (sizes
  /// aligned), and one allocation per arena buffer.
  int64_t arenaBytes = 0, lowerBound = 0, naiveBytes = 0;
  /// Outputs that took an input's storage.
  int inPlaceHits = 0;
  /// The placement heuristic whose arena was kept ("size", "lifetime",
  /// "start", "best-fit", or "search" when the search improved on them).
  std::string placement;
};

/// Plans `graph`. Deterministic for given options (the search is seeded
/// and stops at its time box or after a fixed number of tries).
MemoryPlan planMemory(const KernelGraph &graph,
                      const PlanOptions &options = {});

/// Checks that no two arena buffers alive at the same step overlap in the
/// arena (buffers sharing one storage by in-place reuse excepted), that
/// offsets are aligned and inside the arena; returns what is wrong, naming
/// both buffers, or nullopt.
std::optional<std::string> verifyMemoryPlan(const KernelGraph &graph,
                                            const MemoryPlan &plan);

/// A random kernel graph of `kernels` kernels for tests and benchmarks:
/// each reads 1 to 3 earlier buffers or graph inputs and writes 1 or 2
/// buffers of a few typical sizes; about half are elementwise with in-place
/// candidates; the last kernels' outputs are the graph's outputs.
KernelGraph randomKernelGraph(int kernels, uint64_t seed);

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_MEMORYPLAN_H
