//===- TuningCache.h - Measured GEMM tilings kept between runs --*- C++ -*-===//
//
// --autotune times a few tilings per GEMM kernel once and keeps the winner
// in a JSON file keyed by chip, target and the kernel's signature, so the
// next compile of the same GEMM (on any machine, GPU or not) reads it back.
// docs/autotune.md describes the file.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DRIVER_TUNINGCACHE_H
#define OPFUSE_LIB_DRIVER_TUNINGCACHE_H

#include "opfuse/Driver/ExitCodes.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opfuse {

/// What was measured for one GEMM signature.
struct TuningEntry {
  /// The fastest tiling, as --matmul-tiling spells it.
  std::string tiling;
  /// The device it was measured on (cuDeviceGetName).
  std::string device;
  /// Every candidate timed, with its P50 in microseconds, in timing order.
  std::vector<std::pair<std::string, double>> measuredUs;
};

class TuningCache {
public:
  /// The cache at `path`: empty when the file does not exist. On failure
  /// says why in `error` and sets `code` (ExitIO: unreadable; ExitInvalidInput:
  /// not a tuning cache).
  static std::optional<TuningCache> load(llvm::StringRef path,
                                         std::string &error, ExitCode &code);

  /// $XDG_CACHE_HOME/opfuse/autotune.json (~/.cache when unset).
  static std::string defaultPath();

  const TuningEntry *find(llvm::StringRef key) const;
  void set(llvm::StringRef key, TuningEntry entry);
  size_t size() const { return entries_.size(); }

  /// Writes the cache to `path` (creating its directory); on failure says
  /// why in `error`.
  bool save(llvm::StringRef path, std::string &error) const;

  /// The file's text: version 1, one object per key in key order.
  std::string toJson() const;

private:
  std::map<std::string, TuningEntry> entries_;
};

} // namespace opfuse

#endif // OPFUSE_LIB_DRIVER_TUNINGCACHE_H
