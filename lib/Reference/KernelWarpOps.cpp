//===- KernelWarpOps.cpp - Warp-wide matrix ops of the interpreter --------===//
//
// The fragment layouts, written once as index maps from a lane's slot to a
// matrix element, so that loading and multiplying agree by construction.
//
//===----------------------------------------------------------------------===//

#include "KernelWarpOps.h"

namespace opfuse::reference::kernel {

LdMatrixRegisters ldmatrix(const LdMatrixRows &rows, int num, bool transpose) {
  LdMatrixRegisters out{};
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int i = 0; i < num; ++i) {
      uint32_t halves[2];
      for (int h = 0; h < 2; ++h) {
        int row = lane / 4, col = 2 * (lane % 4) + h;
        if (transpose)
          std::swap(row, col);
        halves[h] = rows[8 * i + row][col];
      }
      out[lane][i] = halves[0] | (halves[1] << 16);
    }
  return out;
}

namespace {
/// The (row, column) of A's slot `s` (0-7) in lane `lane`.
std::pair<int, int> aElement(int lane, int s) {
  const int g = lane / 4, t = lane % 4;
  return {g + 8 * ((s / 2) % 2), 2 * t + s % 2 + 8 * (s / 4)};
}
/// The (k, column) of B's slot `s` (0-3).
std::pair<int, int> bElement(int lane, int s) {
  const int g = lane / 4, t = lane % 4;
  return {2 * t + s % 2 + 8 * (s / 2), g};
}
/// The (row, column) of C's and D's slot `s` (0-3).
std::pair<int, int> cElement(int lane, int s) {
  const int g = lane / 4, t = lane % 4;
  return {g + 8 * (s / 2), 2 * t + s % 2};
}
} // namespace

MmaC mmaM16N8K16(const MmaA &a, const MmaB &b, const MmaC &c) {
  double A[16][16], B[16][8], C[16][8];
  for (int lane = 0; lane < kWarpSize; ++lane) {
    for (int s = 0; s < 8; ++s) {
      auto [r, k] = aElement(lane, s);
      A[r][k] = a[lane][s];
    }
    for (int s = 0; s < 4; ++s) {
      auto [k, n] = bElement(lane, s);
      B[k][n] = b[lane][s];
      auto [r, col] = cElement(lane, s);
      C[r][col] = c[lane][s];
    }
  }
  MmaC d{};
  for (int lane = 0; lane < kWarpSize; ++lane)
    for (int s = 0; s < 4; ++s) {
      auto [r, col] = cElement(lane, s);
      // Products of 16-bit floats are exact in double, and 16 of them
      // plus C sum with at most a few ulps of double error.
      double sum = C[r][col];
      for (int k = 0; k < 16; ++k)
        sum += A[r][k] * B[k][col];
      d[lane][s] = static_cast<float>(sum);
    }
  return d;
}

} // namespace opfuse::reference::kernel
