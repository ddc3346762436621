//===- PassStatistics.cpp - Pass statistics that survive release LLVM -----===//
//
// One process-wide table behind a mutex: passes count a handful of
// decisions per function, so contention does not matter.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Support/PassStatistics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

#include <mutex>
#include <string>
#include <vector>

namespace opfuse {

namespace {
struct Count {
  std::string name;
  std::string description;
  uint64_t value = 0;
};
struct PassCounts {
  std::string pass;
  std::vector<Count> counts;
};
std::mutex mutex;
std::vector<PassCounts> table;
} // namespace

void addPassStatistic(llvm::StringRef pass, const PassStatistic &statistic,
                      uint64_t value) {
  std::lock_guard<std::mutex> lock(mutex);
  auto entry = llvm::find_if(
      table, [&](const PassCounts &counts) { return counts.pass == pass; });
  if (entry == table.end())
    entry = table.insert(table.end(), PassCounts{pass.str(), {}});
  auto count = llvm::find_if(
      entry->counts, [&](const Count &c) { return c.name == statistic.name; });
  if (count == entry->counts.end())
    count = entry->counts.insert(
        entry->counts.end(), Count{statistic.name, statistic.description, 0});
  count->value += value;
}

void printPassStatistics(llvm::raw_ostream &os) {
  std::lock_guard<std::mutex> lock(mutex);
  if (table.empty())
    return;
  os << "===" << std::string(73, '-') << "===\n"
     << "             ... opfuse pass statistics (counted by opfuse) ...\n"
     << "===" << std::string(73, '-') << "===\n";
  // By name, as MLIR's list view sorts: the passes' threads count in any
  // order.
  std::vector<PassCounts> sorted = table;
  llvm::sort(sorted, [](const PassCounts &a, const PassCounts &b) {
    return a.pass < b.pass;
  });
  for (PassCounts &counts : sorted) {
    llvm::sort(counts.counts,
               [](const Count &a, const Count &b) { return a.name < b.name; });
    os << counts.pass << "\n";
    size_t width = 0;
    for (const Count &count : counts.counts)
      width = std::max(width, std::to_string(count.value).size());
    for (const Count &count : counts.counts)
      os << "  (S) " << llvm::right_justify(std::to_string(count.value), width)
         << " " << count.name << " - " << count.description << "\n";
  }
  os.flush();
}

void clearPassStatistics() {
  std::lock_guard<std::mutex> lock(mutex);
  table.clear();
}

bool passStatisticsRequested() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find("mlir-pass-statistics");
  return found != options.end() && found->second->getNumOccurrences() > 0;
}

} // namespace opfuse
