//===- plan-random.cpp - Buffer planning on random kernel graphs ----------===//
//
// The benchmark behind docs/memory-planning.md: plans `--graphs` random
// graphs of `--kernels` kernels and prints the distribution of arena /
// lower bound and the planning time; every plan is verified.
//
//   opfuse-plan-random --kernels 1000 --graphs 200
//   opfuse-plan-random --kernels 10000 --graphs 5
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/MemoryPlan.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

namespace cl = llvm::cl;

static cl::opt<int> kernels("kernels", cl::desc("Kernels per graph"),
                            cl::init(1000));
static cl::opt<int> graphs("graphs", cl::desc("Graphs to plan"), cl::init(100));
static cl::opt<unsigned long long> seed("seed", cl::desc("First seed"),
                                        cl::init(1));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "random-graph buffer planning\n");
  if (kernels < 1 || graphs < 1) {
    llvm::errs() << "opfuse-plan-random: --kernels and --graphs must be >= 1\n";
    return 2;
  }
  std::vector<double> ratios, milliseconds;
  int atBound = 0, within2 = 0, inPlace = 0;
  double naiveRatio = 0;
  for (int i = 0; i < graphs; ++i) {
    opfuse::KernelGraph graph = opfuse::randomKernelGraph(kernels, seed + i);
    auto start = std::chrono::steady_clock::now();
    opfuse::MemoryPlan plan = opfuse::planMemory(graph);
    milliseconds.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count());
    if (std::optional<std::string> error =
            opfuse::verifyMemoryPlan(graph, plan)) {
      llvm::errs() << "opfuse-plan-random: seed " << seed + i
                   << ": invalid plan: " << *error << "\n";
      return 1;
    }
    double ratio = double(plan.arenaBytes) / plan.lowerBound;
    ratios.push_back(ratio);
    atBound += plan.arenaBytes == plan.lowerBound;
    within2 += ratio <= 1.02;
    inPlace += plan.inPlaceHits;
    naiveRatio += double(plan.naiveBytes) / plan.arenaBytes;
  }
  std::sort(ratios.begin(), ratios.end());
  std::sort(milliseconds.begin(), milliseconds.end());
  auto at = [](const std::vector<double> &v, double q) {
    return v[std::min(v.size() - 1, size_t(q * v.size()))];
  };
  llvm::outs() << llvm::formatv(
      "{0} graphs of {1} kernels: arena / lower bound min {2:F4}, median "
      "{3:F4}, p90 {4:F4}, max {5:F4}; at the bound {6}, within 2% {7} "
      "({8:F1}%); naive / arena {9:F2} on average; {10:F1} in-place "
      "outputs per graph\n",
      graphs, kernels, ratios.front(), at(ratios, 0.5), at(ratios, 0.9),
      ratios.back(), atBound, within2, 100.0 * within2 / graphs,
      naiveRatio / graphs, double(inPlace) / graphs);
  llvm::outs() << llvm::formatv("planning time: median {0:F2} ms, max {1:F2} "
                                "ms\n",
                                at(milliseconds, 0.5), milliseconds.back());
  return 0;
}
