//===- PassStatistics.h - Pass statistics that survive release LLVM -*- C++
//-*-===//
//
// MLIR's Pass::Statistic derives from llvm::Statistic, which release builds
// of LLVM (Debian's among them) compile to a no-op: --mlir-pass-statistics
// then prints empty tables. opfuse's passes, and plugins built against
// libopfuse.so, count here instead; opt-fuse and opfuse-opt print the
// counts after MLIR's tables when --mlir-pass-statistics is given.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_SUPPORT_PASSSTATISTICS_H
#define OPFUSE_SUPPORT_PASSSTATISTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace opfuse {

/// One statistic of a pass: a short name and what it counts.
struct PassStatistic {
  const char *name;
  const char *description;
};

/// Adds `value` to `statistic` of the pass whose argument is `pass`. Safe
/// from the pass manager's threads.
void addPassStatistic(llvm::StringRef pass, const PassStatistic &statistic,
                      uint64_t value = 1);

/// Every statistic counted since the last clear, by pass and by name (both
/// sorted), in the form of --mlir-pass-statistics' list view; nothing when
/// none was counted.
void printPassStatistics(llvm::raw_ostream &os);

/// Forgets every count (between the functions of --each-function).
void clearPassStatistics();

/// Whether the command line asked for --mlir-pass-statistics.
bool passStatisticsRequested();

} // namespace opfuse

#endif // OPFUSE_SUPPORT_PASSSTATISTICS_H
