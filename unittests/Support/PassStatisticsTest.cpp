//===- PassStatisticsTest.cpp - opfuse's pass statistics ------------------===//
//
// Counts from many threads add up, print sorted by pass and name in the
// list view's form, and clear.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Support/PassStatistics.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace opfuse;

namespace {

constexpr PassStatistic kernels{"kernels", "Kernels formed"};
constexpr PassStatistic bytes{"bytes-saved", "Bytes saved"};

std::string printed() {
  std::string text;
  llvm::raw_string_ostream os(text);
  printPassStatistics(os);
  return text;
}

TEST(PassStatistics, CountsFromThreadsAddUpAndPrintSorted) {
  clearPassStatistics();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        addPassStatistic("z-pass", kernels);
        addPassStatistic("a-pass", bytes, 3);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  addPassStatistic("z-pass", bytes, 12);
  const std::string text = printed();
  // Passes by name, then statistics by name, values right-aligned.
  const size_t a = text.find("a-pass\n  (S) 24000 bytes-saved - Bytes saved\n");
  const size_t z = text.find("z-pass\n  (S)   12 bytes-saved - Bytes saved\n"
                             "  (S) 8000 kernels - Kernels formed\n");
  EXPECT_NE(a, std::string::npos) << text;
  EXPECT_NE(z, std::string::npos) << text;
  EXPECT_LT(a, z);
  clearPassStatistics();
  EXPECT_EQ(printed(), "");
}

} // namespace
