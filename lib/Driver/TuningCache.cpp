//===- TuningCache.cpp - Measured GEMM tilings kept between runs ----------===//
//
// The file is small, human-readable JSON; a file that does not parse, or
// holds keys this version does not know, is an error rather than silently
// replaced, since it may be someone's hour of tuning.
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"

#include "opfuse/Support/NestingDepth.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

namespace opfuse {

namespace {
constexpr int64_t kVersion = 1;

/// Parses one entry; on failure says which field is wrong.
std::optional<std::pair<std::string, TuningEntry>>
parseEntry(const llvm::json::Value &value, std::string &error) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object) {
    error = "an entry is not an object";
    return std::nullopt;
  }
  for (const auto &field : *object)
    if (field.first != "key" && field.first != "tiling" &&
        field.first != "device" && field.first != "measured_us") {
      error = "unknown entry field '" + field.first.str() + "'";
      return std::nullopt;
    }
  std::optional<llvm::StringRef> key = object->getString("key");
  std::optional<llvm::StringRef> tiling = object->getString("tiling");
  if (!key || !tiling) {
    error = "an entry lacks its \"key\" or \"tiling\" string";
    return std::nullopt;
  }
  TuningEntry entry;
  entry.tiling = tiling->str();
  if (std::optional<llvm::StringRef> device = object->getString("device"))
    entry.device = device->str();
  if (const llvm::json::Value *measured = object->get("measured_us")) {
    const llvm::json::Array *pairs = measured->getAsArray();
    if (!pairs) {
      error = "\"measured_us\" of '" + key->str() + "' is not an array";
      return std::nullopt;
    }
    for (const llvm::json::Value &pair : *pairs) {
      const llvm::json::Array *items = pair.getAsArray();
      std::optional<llvm::StringRef> name = items && items->size() == 2
                                                ? (*items)[0].getAsString()
                                                : std::nullopt;
      std::optional<double> us = items && items->size() == 2
                                     ? (*items)[1].getAsNumber()
                                     : std::nullopt;
      if (!name || !us) {
        error = "\"measured_us\" of '" + key->str() +
                "' holds something other than [tiling, microseconds]";
        return std::nullopt;
      }
      entry.measuredUs.emplace_back(name->str(), *us);
    }
  }
  return std::make_pair(key->str(), std::move(entry));
}
} // namespace

std::optional<TuningCache>
TuningCache::load(llvm::StringRef path, std::string &error, ExitCode &code) {
  TuningCache cache;
  if (!llvm::sys::fs::exists(path))
    return cache;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read tuning cache '" + path.str() +
            "': " + buffer.getError().message();
    code = ExitIO;
    return std::nullopt;
  }
  code = ExitInvalidInput;
  const std::string where = "tuning cache '" + path.str() + "': ";
  if (std::optional<size_t> deep =
          findExcessiveNesting((*buffer)->getBuffer(), TextSyntax::Json)) {
    error = where + "brackets nest deeper than " +
            std::to_string(kMaxNestingDepth) + " levels at offset " +
            std::to_string(*deep);
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = where + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getInteger("version") != kVersion ||
      !root->getArray("entries")) {
    error = where + "not a version-1 tuning cache (an object with "
                    "\"version\": 1 and an \"entries\" array)";
    return std::nullopt;
  }
  for (const llvm::json::Value &value : *root->getArray("entries")) {
    std::string why;
    auto entry = parseEntry(value, why);
    if (!entry) {
      error = where + why;
      return std::nullopt;
    }
    cache.entries_[entry->first] = std::move(entry->second);
  }
  code = ExitSuccess;
  return cache;
}

std::string TuningCache::defaultPath() {
  llvm::SmallString<256> path;
  if (!llvm::sys::path::cache_directory(path))
    path = ".";
  llvm::sys::path::append(path, "opfuse", "autotune.json");
  return path.str().str();
}

const TuningEntry *TuningCache::find(llvm::StringRef key) const {
  auto it = entries_.find(key.str());
  return it == entries_.end() ? nullptr : &it->second;
}

void TuningCache::set(llvm::StringRef key, TuningEntry entry) {
  entries_[key.str()] = std::move(entry);
}

std::string TuningCache::toJson() const {
  llvm::json::Array entries;
  for (const auto &[key, entry] : entries_) {
    llvm::json::Array measured;
    for (const auto &[tiling, us] : entry.measuredUs)
      measured.push_back(llvm::json::Array{tiling, us});
    entries.push_back(llvm::json::Object{{"key", key},
                                         {"tiling", entry.tiling},
                                         {"device", entry.device},
                                         {"measured_us", std::move(measured)}});
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv(
      "{0:2}", llvm::json::Value(llvm::json::Object{
                   {"version", kVersion}, {"entries", std::move(entries)}}));
  os << "\n";
  return text;
}

bool TuningCache::save(llvm::StringRef path, std::string &error) const {
  llvm::StringRef directory = llvm::sys::path::parent_path(path);
  if (!directory.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
      error = "cannot create '" + directory.str() + "': " + ec.message();
      return false;
    }
  // Written beside the target and renamed over it, so a run that stops
  // half-way, or another opt-fuse tuning at the same time, never leaves a
  // truncated file.
  const std::string temporary =
      (path + ".tmp" + llvm::Twine(llvm::sys::Process::getProcessId())).str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error = "cannot write tuning cache '" + path.str() + "': " + ec.message();
      return false;
    }
    os << toJson();
    os.close();
    if (os.has_error()) {
      error = "cannot write tuning cache '" + path.str() +
              "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    error = "cannot write tuning cache '" + path.str() + "': " + ec.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

} // namespace opfuse
