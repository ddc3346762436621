//===- KernelWarpOpsTest.cpp - ldmatrix and mma.sync fragment layouts -----===//
//
// The interpreter's warp-wide matrix ops against the PTX ISA's fragment
// tables, written out here again lane by lane (not through the
// interpreter's index maps), and the product against a plain triple loop.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Reference/KernelWarpOps.h"

#include <gtest/gtest.h>

#include <random>

using namespace opfuse::reference::kernel;

namespace {

// Matrix i of an ldmatrix .x4 holds 1000 i + 10 row + column at (row,
// column); lane l addresses row l % 8 of matrix l / 8.
LdMatrixRows fourMatrices() {
  LdMatrixRows rows{};
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int col = 0; col < 8; ++col)
      rows[lane][col] = 1000 * (lane / 8) + 10 * (lane % 8) + col;
  return rows;
}

TEST(KernelWarpOpsTest, LdMatrixGivesEachLaneTwoNeighboursOfARow) {
  LdMatrixRegisters registers = ldmatrix(fourMatrices(), 4, false);
  // PTX ISA, ldmatrix: lane l holds (l / 4, 2 (l % 4)) and its right
  // neighbour of each matrix, the first in the low half.
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < 4; ++i) {
      const uint32_t first = 1000 * i + 10 * (lane / 4) + 2 * (lane % 4);
      EXPECT_EQ(registers[lane][i], first | ((first + 1) << 16))
          << "lane " << lane << ", matrix " << i;
    }
}

TEST(KernelWarpOpsTest, LdMatrixTransposedGivesTwoNeighboursOfAColumn) {
  LdMatrixRegisters registers = ldmatrix(fourMatrices(), 2, true);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    for (int i = 0; i < 2; ++i) {
      const uint32_t first = 1000 * i + 10 * (2 * (lane % 4)) + lane / 4;
      EXPECT_EQ(registers[lane][i], first | ((first + 10) << 16))
          << "lane " << lane << ", matrix " << i;
    }
    // .x2 fills two registers only.
    EXPECT_EQ(registers[lane][2], 0u);
  }
}

TEST(KernelWarpOpsTest, MmaM16N8K16IsTheProductPlusC) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  double A[16][16], B[16][8], C[16][8];
  for (auto &row : A)
    for (double &x : row)
      x = small(rng) / 4.0;
  for (auto &row : B)
    for (double &x : row)
      x = small(rng) / 4.0;
  for (auto &row : C)
    for (double &x : row)
      x = small(rng);
  // The PTX ISA's fragments of mma.m16n8k16 for .bf16/.f16 and f32
  // accumulators: groupID g = lane >> 2, threadID_in_group t = lane % 4.
  MmaA a{};
  MmaB b{};
  MmaC c{};
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int g = lane >> 2, t = lane % 4;
    const int aRow[8] = {g, g, g + 8, g + 8, g, g, g + 8, g + 8};
    const int aCol[8] = {2 * t,     2 * t + 1, 2 * t,     2 * t + 1,
                         2 * t + 8, 2 * t + 9, 2 * t + 8, 2 * t + 9};
    for (int i = 0; i < 8; ++i)
      a[lane][i] = A[aRow[i]][aCol[i]];
    const int bRow[4] = {2 * t, 2 * t + 1, 2 * t + 8, 2 * t + 9};
    for (int i = 0; i < 4; ++i)
      b[lane][i] = B[bRow[i]][g];
    const int cRow[4] = {g, g, g + 8, g + 8};
    const int cCol[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    for (int i = 0; i < 4; ++i)
      c[lane][i] = C[cRow[i]][cCol[i]];
  }
  MmaC d = mmaM16N8K16(a, b, c);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int g = lane >> 2, t = lane % 4;
    const int cRow[4] = {g, g, g + 8, g + 8};
    const int cCol[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    for (int i = 0; i < 4; ++i) {
      double expected = C[cRow[i]][cCol[i]];
      for (int k = 0; k < 16; ++k)
        expected += A[cRow[i]][k] * B[k][cCol[i]];
      EXPECT_EQ(d[lane][i], expected) << "lane " << lane << ", slot " << i;
    }
  }
}

} // namespace
