//===- MemoryPlan.cpp - Kernel order, liveness and one arena --------------===//
//
// Three stages, each keeping the best of several candidates: the order
// (lowest max-live lower bound), in-place reuse along that order, and the
// placement (smallest arena). Sizes are aligned to kArenaAlignment before
// anything is compared, so the lower bound is one the arena can reach.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/MemoryPlan.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <random>

namespace opfuse {

namespace {

int64_t aligned(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// Who writes and reads each buffer, and the kernel-level edges.
struct Dependencies {
  std::vector<int> writer;
  std::vector<std::vector<int>> readers;
  std::vector<std::vector<int>> successors;
  std::vector<int> predecessors;

  explicit Dependencies(const KernelGraph &graph)
      : writer(graph.buffers.size(), -1), readers(graph.buffers.size()),
        successors(graph.kernels.size()),
        predecessors(graph.kernels.size(), 0) {
    for (size_t k = 0; k < graph.kernels.size(); ++k)
      for (int b : graph.kernels[k].writes)
        writer[b] = k;
    for (size_t k = 0; k < graph.kernels.size(); ++k) {
      std::vector<int> from;
      for (int b : graph.kernels[k].reads) {
        if (std::find(readers[b].begin(), readers[b].end(), int(k)) ==
            readers[b].end())
          readers[b].push_back(k);
        if (writer[b] >= 0)
          from.push_back(writer[b]);
      }
      std::sort(from.begin(), from.end());
      from.erase(std::unique(from.begin(), from.end()), from.end());
      for (int p : from)
        successors[p].push_back(k);
      predecessors[k] = from.size();
    }
  }
};

/// A topological order: `pick` chooses the next kernel among the ready ones
/// (given in the order they became ready).
std::vector<int>
listSchedule(const KernelGraph &graph, const Dependencies &deps,
             const std::function<size_t(const std::vector<int> &)> &pick,
             const std::function<void(int)> &onRun = nullptr) {
  std::vector<int> waiting = deps.predecessors, ready, order;
  for (size_t k = 0; k < graph.kernels.size(); ++k)
    if (waiting[k] == 0)
      ready.push_back(k);
  while (!ready.empty()) {
    size_t index = pick(ready);
    int k = ready[index];
    ready.erase(ready.begin() + index);
    order.push_back(k);
    if (onRun)
      onRun(k);
    for (int s : deps.successors[k])
      if (--waiting[s] == 0)
        ready.push_back(s);
  }
  return order;
}

/// Finishes a consumer chain before starting a sibling: always run the
/// kernel that became ready last (the earliest in program order among those
/// made ready by one kernel).
std::vector<int> depthFirstOrder(const KernelGraph &graph,
                                 const Dependencies &deps) {
  return listSchedule(graph, deps, [](const std::vector<int> &ready) {
    // The newest entries are at the back; among a batch added together the
    // one with the lowest index runs first.
    size_t best = ready.size() - 1;
    for (size_t i = ready.size() - 1; i-- > 0;) {
      if (ready[i] > ready[i + 1])
        break;
      best = i;
    }
    return best;
  });
}

/// Runs the ready kernel that grows the live set least: the arena bytes it
/// writes minus those it frees (buffers whose last remaining reader it is).
std::vector<int> greedyOrder(const KernelGraph &graph,
                             const Dependencies &deps) {
  std::vector<int> pendingReaders(graph.buffers.size());
  for (size_t b = 0; b < graph.buffers.size(); ++b)
    pendingReaders[b] = deps.readers[b].size();
  auto delta = [&](int k) {
    int64_t grow = 0;
    for (int b : graph.kernels[k].writes)
      if (graph.buffers[b].inArena && !deps.readers[b].empty())
        grow += aligned(graph.buffers[b].bytes);
    for (int b : graph.kernels[k].reads)
      if (graph.buffers[b].inArena && pendingReaders[b] == 1)
        grow -= aligned(graph.buffers[b].bytes);
    return grow;
  };
  return listSchedule(
      graph, deps,
      [&](const std::vector<int> &ready) {
        size_t best = 0;
        int64_t bestDelta = delta(ready[0]);
        for (size_t i = 1; i < ready.size(); ++i) {
          int64_t d = delta(ready[i]);
          if (d < bestDelta || (d == bestDelta && ready[i] < ready[best])) {
            best = i;
            bestDelta = d;
          }
        }
        return best;
      },
      [&](int k) {
        for (int b : graph.kernels[k].reads)
          --pendingReaders[b];
      });
}

struct Storage {
  int64_t bytes = 0;
  int first = 0, last = 0;
};

/// Lifetimes, in-place merges and storages for one order.
struct Liveness {
  std::vector<std::pair<int, int>> lifetime;
  std::vector<int> storage;
  std::vector<Storage> storages;
  int inPlaceHits = 0;
  int64_t lowerBound = 0;
};

Liveness computeLiveness(const KernelGraph &graph, const Dependencies &deps,
                         const std::vector<int> &order) {
  const size_t numBuffers = graph.buffers.size();
  std::vector<int> step(graph.kernels.size());
  for (size_t i = 0; i < order.size(); ++i)
    step[order[i]] = i;
  Liveness live;
  live.lifetime.assign(numBuffers, {-1, -1});
  live.storage.assign(numBuffers, -1);
  for (size_t b = 0; b < numBuffers; ++b) {
    if (!graph.buffers[b].inArena || deps.writer[b] < 0)
      continue;
    int first = step[deps.writer[b]], last = first;
    for (int r : deps.readers[b])
      last = std::max(last, step[r]);
    if (graph.buffers[b].liveToEnd)
      last = static_cast<int>(order.size()) - 1;
    live.lifetime[b] = {first, last};
  }
  // Along the order, an output takes the storage of an input that dies in
  // the same kernel; each storage passes to at most one output per step.
  std::vector<char> handedOn(numBuffers, 0);
  for (int k : order) {
    for (int b : graph.kernels[k].writes) {
      if (live.lifetime[b].first < 0)
        continue;
      for (auto [out, in] : graph.kernels[k].inPlace) {
        if (out != b || live.lifetime[in].first < 0 || handedOn[in] ||
            live.lifetime[in].second != step[k] ||
            aligned(graph.buffers[in].bytes) != aligned(graph.buffers[b].bytes))
          continue;
        handedOn[in] = 1;
        int s = live.storage[in];
        live.storage[b] = s;
        live.storages[s].last =
            std::max(live.storages[s].last, live.lifetime[b].second);
        ++live.inPlaceHits;
        break;
      }
      if (live.storage[b] < 0) {
        live.storage[b] = live.storages.size();
        live.storages.push_back({aligned(graph.buffers[b].bytes),
                                 live.lifetime[b].first,
                                 live.lifetime[b].second});
      }
    }
  }
  std::vector<int64_t> change(order.size() + 1, 0);
  for (const Storage &s : live.storages) {
    change[s.first] += s.bytes;
    change[s.last + 1] -= s.bytes;
  }
  int64_t current = 0;
  for (size_t t = 0; t < order.size(); ++t) {
    current += change[t];
    live.lowerBound = std::max(live.lowerBound, current);
  }
  return live;
}

/// Places storages in `sequence` order at the lowest offset (first fit) or
/// in the tightest gap (best fit) clear of every placed storage alive at
/// the same time. Returns the arena size.
int64_t place(const std::vector<Storage> &storages,
              const std::vector<int> &sequence, bool bestFit,
              std::vector<int64_t> &offsets, int64_t limit = INT64_MAX) {
  offsets.assign(storages.size(), -1);
  // Placed storages by offset, so the gaps of a new one are found in one
  // pass without sorting (this loop is the planner's hot spot).
  std::vector<std::pair<int64_t, int>> byOffset;
  byOffset.reserve(storages.size());
  int64_t arena = 0;
  for (int s : sequence) {
    const Storage &me = storages[s];
    int64_t cursor = 0, chosen = -1, chosenGap = INT64_MAX;
    for (auto [offset, p] : byOffset) {
      const Storage &other = storages[p];
      if (other.first > me.last || me.first > other.last)
        continue;
      if (offset >= cursor + me.bytes) {
        int64_t gap = offset - cursor;
        if (!bestFit) {
          chosen = cursor;
          break;
        }
        if (gap < chosenGap) {
          chosenGap = gap;
          chosen = cursor;
        }
      }
      cursor = std::max(cursor, offset + other.bytes);
    }
    if (chosen < 0)
      chosen = cursor;
    offsets[s] = chosen;
    arena = std::max(arena, chosen + me.bytes);
    if (arena > limit)
      return arena; // the caller only wants placements within `limit`
    byOffset.insert(std::upper_bound(byOffset.begin(), byOffset.end(),
                                     std::make_pair(chosen, s)),
                    {chosen, s});
  }
  return arena;
}

std::vector<int> sortedBy(size_t count,
                          const std::function<bool(int, int)> &before) {
  std::vector<int> sequence(count);
  std::iota(sequence.begin(), sequence.end(), 0);
  std::stable_sort(sequence.begin(), sequence.end(), before);
  return sequence;
}

} // namespace

namespace {

/// The order with the lowest max-live lower bound among the program order,
/// a depth-first one and a greedy one; records it in `plan`.
Liveness chooseOrder(const KernelGraph &graph, const Dependencies &deps,
                     MemoryPlan &plan) {
  std::vector<int> program(graph.kernels.size());
  std::iota(program.begin(), program.end(), 0);
  const std::pair<const char *, std::vector<int>> candidates[] = {
      {"program", program},
      {"depth-first", depthFirstOrder(graph, deps)},
      {"greedy", greedyOrder(graph, deps)},
  };
  Liveness best;
  bool haveBest = false;
  for (const auto &[name, order] : candidates) {
    if (order.size() != graph.kernels.size())
      continue; // not a topological order: the graph has a cycle
    Liveness live = computeLiveness(graph, deps, order);
    if (!haveBest || live.lowerBound < best.lowerBound) {
      best = std::move(live);
      plan.order = order;
      plan.orderName = name;
      haveBest = true;
    }
  }
  return best;
}

/// The step where the live bytes peak.
int peakStepOf(const std::vector<Storage> &storages, size_t steps) {
  std::vector<int64_t> live(steps + 1, 0);
  for (const Storage &st : storages) {
    live[st.first] += st.bytes;
    live[st.last + 1] -= st.bytes;
  }
  int peakStep = 0;
  int64_t current = 0, peak = -1;
  for (size_t t = 0; t < steps; ++t) {
    current += live[t];
    if (current > peak) {
      peak = current;
      peakStep = t;
    }
  }
  return peakStep;
}

/// A placement heuristic: its name, the order it places storages in, and
/// whether it places each at the best fit instead of the first.
struct Heuristic {
  const char *name;
  std::vector<int> sequence;
  bool bestFit;
};

std::vector<Heuristic> placementHeuristics(const std::vector<Storage> &storages,
                                           int peakStep) {
  auto bySize = [&](int a, int b) {
    return storages[a].bytes != storages[b].bytes
               ? storages[a].bytes > storages[b].bytes
               : storages[a].first < storages[b].first;
  };
  // The storages alive where the live bytes peak must be stacked without
  // gaps for the arena to reach the bound, so one heuristic places them
  // first.
  auto atPeak = [&](int a) {
    return storages[a].first <= peakStep && peakStep <= storages[a].last;
  };
  const size_t n = storages.size();
  return {
      {"size", sortedBy(n, bySize), false},
      {"lifetime",
       sortedBy(n,
                [&](int a, int b) {
                  int la = storages[a].last - storages[a].first,
                      lb = storages[b].last - storages[b].first;
                  return la != lb ? la > lb : bySize(a, b);
                }),
       false},
      {"start",
       sortedBy(n,
                [&](int a, int b) {
                  return storages[a].first != storages[b].first
                             ? storages[a].first < storages[b].first
                             : bySize(a, b);
                }),
       false},
      {"area",
       sortedBy(n,
                [&](int a, int b) {
                  int64_t aa = storages[a].bytes *
                               (storages[a].last - storages[a].first + 1);
                  int64_t ab = storages[b].bytes *
                               (storages[b].last - storages[b].first + 1);
                  return aa != ab ? aa > ab : bySize(a, b);
                }),
       false},
      {"peak",
       sortedBy(n,
                [&](int a, int b) {
                  if (atPeak(a) != atPeak(b))
                    return atPeak(a);
                  return atPeak(a) && storages[a].first != storages[b].first
                             ? storages[a].first < storages[b].first
                             : bySize(a, b);
                }),
       false},
      {"best-fit", sortedBy(n, bySize), true},
  };
}

/// The next placement order the search tries from `sequence` (placed at
/// `current`): try `i` cycles through four moves.
std::vector<int> searchCandidate(int i, const std::vector<Storage> &storages,
                                 const std::vector<int> &sequence,
                                 const std::vector<int64_t> &current,
                                 int64_t lowerBound, std::mt19937_64 &random) {
  const size_t n = storages.size();
  std::vector<int> candidate;
  if (i % 4 == 2) {
    // Move one storage that ends above the bound to the front.
    std::vector<int> high;
    for (size_t j = 0; j < n; ++j)
      if (current[sequence[j]] + storages[sequence[j]].bytes > lowerBound)
        high.push_back(j);
    candidate = sequence;
    if (!high.empty()) {
      size_t j = high[random() % high.size()];
      std::rotate(candidate.begin(), candidate.begin() + j,
                  candidate.begin() + j + 1);
    }
  } else if (i % 4 == 0) {
    candidate.reserve(n);
    for (int s : sequence)
      if (current[s] + storages[s].bytes > lowerBound)
        candidate.push_back(s);
    for (int s : sequence)
      if (current[s] + storages[s].bytes <= lowerBound)
        candidate.push_back(s);
    // Vary which of the high ones goes first from one try to the next.
    size_t high = 0;
    while (high < n &&
           current[candidate[high]] + storages[candidate[high]].bytes >
               lowerBound)
      ++high;
    if (high > 1)
      std::swap(candidate[0], candidate[random() % high]);
  } else if (i % 4 == 1) {
    candidate = sequence;
    std::swap(candidate[random() % n], candidate[random() % n]);
  } else {
    // A fresh greedy start: storages by size with up to 20% noise.
    std::vector<double> key(n);
    for (size_t j = 0; j < n; ++j)
      key[j] =
          storages[j].bytes * (1.0 + 0.2 * double(random() % 1000) / 1000.0);
    candidate = sortedBy(n, [&](int a, int b) { return key[a] > key[b]; });
  }
  return candidate;
}

/// Above 2% of the bound: search placement orders, first fit, within the
/// time box and a fixed number of tries. Each try either moves the
/// storages that end above the bound to the front (they are placed while
/// the low offsets are still free) or swaps two at random; a try that does
/// not grow the arena becomes the new starting point.
void searchPlacement(const std::vector<Storage> &storages,
                     const PlanOptions &options, MemoryPlan &plan,
                     std::vector<int> sequence, int64_t &bestArena,
                     std::vector<int64_t> &bestOffsets) {
  std::mt19937_64 random(options.seed);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(options.searchMilliseconds);
  const size_t n = storages.size();
  const int tries = static_cast<int>(
      std::min<size_t>(40000, std::max<size_t>(20, 2000000000 / (n * n))));
  std::vector<int64_t> current = bestOffsets, offsets;
  for (int i = 0; i < tries && bestArena > plan.lowerBound; ++i) {
    if ((i & 7) == 0 && std::chrono::steady_clock::now() > deadline)
      break;
    std::vector<int> candidate = searchCandidate(i, storages, sequence, current,
                                                 plan.lowerBound, random);
    int64_t arena = place(storages, candidate, false, offsets, bestArena);
    if (arena <= bestArena) {
      sequence = std::move(candidate);
      current = offsets;
      if (arena < bestArena) {
        bestArena = arena;
        bestOffsets = offsets;
        plan.placement = "search";
      }
    }
  }
}

} // namespace

MemoryPlan planMemory(const KernelGraph &graph, const PlanOptions &options) {
  Dependencies deps(graph);
  MemoryPlan plan;
  Liveness best = chooseOrder(graph, deps, plan);
  plan.lifetime = best.lifetime;
  plan.storage = best.storage;
  plan.lowerBound = best.lowerBound;
  plan.inPlaceHits = best.inPlaceHits;
  for (size_t b = 0; b < graph.buffers.size(); ++b)
    if (best.lifetime[b].first >= 0)
      plan.naiveBytes += aligned(graph.buffers[b].bytes);

  const std::vector<Storage> &storages = best.storages;
  std::vector<int64_t> offsets, bestOffsets;
  std::vector<int> bestSequence;
  int64_t bestArena = INT64_MAX;
  for (const Heuristic &heuristic :
       placementHeuristics(storages, peakStepOf(storages, plan.order.size()))) {
    int64_t arena =
        place(storages, heuristic.sequence, heuristic.bestFit, offsets);
    if (arena < bestArena) {
      bestArena = arena;
      bestOffsets = offsets;
      bestSequence = heuristic.sequence;
      plan.placement = heuristic.name;
    }
  }
  if (storages.size() > 1 && bestArena * 100 > plan.lowerBound * 102)
    searchPlacement(storages, options, plan, bestSequence, bestArena,
                    bestOffsets);

  plan.arenaBytes = storages.empty() ? 0 : bestArena;
  plan.offset.assign(graph.buffers.size(), -1);
  for (size_t b = 0; b < graph.buffers.size(); ++b)
    if (plan.storage[b] >= 0)
      plan.offset[b] = bestOffsets[plan.storage[b]];
  return plan;
}

std::optional<std::string> verifyMemoryPlan(const KernelGraph &graph,
                                            const MemoryPlan &plan) {
  std::vector<int> buffers;
  for (size_t b = 0; b < graph.buffers.size(); ++b) {
    if (plan.offset[b] < 0)
      continue;
    int64_t end = plan.offset[b] + aligned(graph.buffers[b].bytes);
    if (plan.offset[b] % kArenaAlignment != 0 || end > plan.arenaBytes)
      return "buffer '" + graph.buffers[b].name + "' at offset " +
             std::to_string(plan.offset[b]) +
             " is misaligned or outside the arena of " +
             std::to_string(plan.arenaBytes) + " bytes";
    buffers.push_back(b);
  }
  std::sort(buffers.begin(), buffers.end(), [&](int a, int b) {
    return plan.lifetime[a].first < plan.lifetime[b].first;
  });
  std::vector<int> active;
  for (int b : buffers) {
    const auto [first, last] = plan.lifetime[b];
    const int start = first;
    active.erase(
        std::remove_if(active.begin(), active.end(),
                       [&](int a) { return plan.lifetime[a].second < start; }),
        active.end());
    for (int a : active) {
      if (plan.storage[a] == plan.storage[b])
        continue;
      int64_t aEnd = plan.offset[a] + aligned(graph.buffers[a].bytes);
      int64_t bEnd = plan.offset[b] + aligned(graph.buffers[b].bytes);
      if (plan.offset[a] < bEnd && plan.offset[b] < aEnd)
        return "buffers '" + graph.buffers[a].name + "' (steps " +
               std::to_string(plan.lifetime[a].first) + "-" +
               std::to_string(plan.lifetime[a].second) + ", bytes " +
               std::to_string(plan.offset[a]) + "-" + std::to_string(aEnd) +
               ") and '" + graph.buffers[b].name + "' (steps " +
               std::to_string(first) + "-" + std::to_string(last) + ", bytes " +
               std::to_string(plan.offset[b]) + "-" + std::to_string(bEnd) +
               ") are alive together and overlap";
    }
    active.push_back(b);
  }
  return std::nullopt;
}

KernelGraph randomKernelGraph(int kernels, uint64_t seed) {
  std::mt19937_64 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % n); };
  static const int64_t sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20,
                                  48 << 20};
  KernelGraph graph;
  auto addBuffer = [&](int64_t bytes, bool inArena) {
    graph.buffers.push_back(
        {bytes, inArena, "b" + std::to_string(graph.buffers.size()), false});
    return static_cast<int>(graph.buffers.size()) - 1;
  };
  std::vector<int> available;
  for (int i = 0; i < std::max(2, kernels / 50); ++i)
    available.push_back(addBuffer(sizes[pick(5)], false));
  for (int k = 0; k < kernels; ++k) {
    KernelNode node;
    int reads = 1 + pick(3);
    for (int r = 0; r < reads; ++r) {
      // Mostly recent values (chains), sometimes an old one (skips).
      int window = std::min<int>(available.size(), pick(4) == 0 ? 1 << 30 : 8);
      int b = available[available.size() - 1 - pick(window)];
      if (std::find(node.reads.begin(), node.reads.end(), b) ==
          node.reads.end())
        node.reads.push_back(b);
    }
    bool elementwise = pick(2) == 0;
    int writes = pick(4) == 0 ? 2 : 1;
    for (int w = 0; w < writes; ++w) {
      int64_t bytes =
          elementwise ? graph.buffers[node.reads[0]].bytes : sizes[pick(5)];
      int b = addBuffer(bytes, true);
      node.writes.push_back(b);
      if (elementwise)
        for (int in : node.reads)
          if (graph.buffers[in].bytes == bytes)
            node.inPlace.push_back({b, in});
      available.push_back(b);
    }
    graph.kernels.push_back(std::move(node));
  }
  // The last kernel's outputs are the graph's: not in the arena.
  for (int b : graph.kernels.back().writes) {
    graph.buffers[b].inArena = false;
    graph.buffers[b].liveToEnd = true;
  }
  return graph;
}

} // namespace opfuse
