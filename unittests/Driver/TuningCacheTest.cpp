//===- TuningCacheTest.cpp - The --autotune cache file --------------------===//
//
// A saved cache loads back entry for entry; a missing file is an empty
// cache; anything else that is not a version-1 cache is refused with the
// exit code the driver returns.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Driver/TuningCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace opfuse;

namespace {

class TuningCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tuning", directory));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  std::string file(llvm::StringRef name) {
    llvm::SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }
  void write(llvm::StringRef path, llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }

  llvm::SmallString<128> directory;
};

TEST_F(TuningCacheTest, SaveThenLoad) {
  TuningCache cache;
  cache.set("sm_90 h200 fuse.matmul(a) -> b",
            {"wgmma:128x256x64/2x1/4",
             "NVIDIA H200",
             {{"wgmma:128x256x64/2x1/4", 1165.1},
              {"wgmma:256x128x64/4x1/4", 1257.3}}});
  cache.set("sm_80 a100 fuse.conv2d(c) -> d", {"64x64x32/2x2/3", "", {}});
  // The directory is created on save.
  const std::string path = file("nested/autotune.json");
  std::string error;
  ASSERT_TRUE(cache.save(path, error)) << error;

  ExitCode code = ExitSuccess;
  std::optional<TuningCache> loaded = TuningCache::load(path, error, code);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(code, ExitSuccess);
  EXPECT_EQ(loaded->size(), 2u);
  const TuningEntry *entry = loaded->find("sm_90 h200 fuse.matmul(a) -> b");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->tiling, "wgmma:128x256x64/2x1/4");
  EXPECT_EQ(entry->device, "NVIDIA H200");
  ASSERT_EQ(entry->measuredUs.size(), 2u);
  EXPECT_EQ(entry->measuredUs[1].first, "wgmma:256x128x64/4x1/4");
  EXPECT_DOUBLE_EQ(entry->measuredUs[1].second, 1257.3);
  EXPECT_EQ(loaded->toJson(), cache.toJson());
  EXPECT_FALSE(loaded->find("sm_90 h200 fuse.matmul(x) -> y"));
  // No temporary file is left beside the cache.
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(file("nested"), ec), end;
       it != end && !ec; it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(TuningCacheTest, MissingFileIsEmpty) {
  std::string error;
  ExitCode code = ExitSuccess;
  std::optional<TuningCache> cache =
      TuningCache::load(file("absent.json"), error, code);
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->size(), 0u);
}

TEST_F(TuningCacheTest, RefusesWhatIsNotACache) {
  struct Case {
    const char *text, *message;
  };
  for (Case c : {Case{"[1, 2]", "not a version-1 tuning cache"},
                 Case{R"({"version": 1, "entries": [{"key": "k"}]})",
                      "lacks its \"key\" or \"tiling\""},
                 Case{R"({"version": 1, "entries": [{"key": "k", "tiling": "t",
                       "measured_us": [["t"]]}]})",
                      "[tiling, microseconds]"},
                 Case{"{\"version\": 1,", "tuning cache"}}) {
    const std::string path = file("bad.json");
    write(path, c.text);
    std::string error;
    ExitCode code = ExitSuccess;
    EXPECT_FALSE(TuningCache::load(path, error, code)) << c.text;
    EXPECT_EQ(code, ExitInvalidInput) << c.text;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

TEST_F(TuningCacheTest, UnwritableDirectory) {
  write(file("plain"), "x");
  TuningCache cache;
  std::string error;
  // A path below a regular file cannot be created.
  EXPECT_FALSE(cache.save(file("plain/autotune.json"), error));
  EXPECT_NE(error.find("plain"), std::string::npos) << error;
}

} // namespace
