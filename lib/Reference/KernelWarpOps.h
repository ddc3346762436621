//===- KernelWarpOps.h - Warp matrix ops of the interpreter -----*- C++ -*-===//
//
// What ldmatrix and mma.sync give each lane of a warp, from what each lane
// holds: the fragment layouts of the PTX ISA ("Matrix fragments for
// mma.m16n8k16", "ldmatrix"), as pure functions so that they are tested on
// their own and the interpreter only gathers and scatters the lanes.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_REFERENCE_KERNELWARPOPS_H
#define OPFUSE_LIB_REFERENCE_KERNELWARPOPS_H

#include <array>
#include <cstdint>

namespace opfuse::reference::kernel {

constexpr int kWarpSize = 32;

/// ldmatrix .m8n8 .x`num` .b16: `rows[l]` are the eight 16-bit elements at
/// lane l's address (lanes 8i to 8i+7 address the rows of matrix i; only
/// the first 8 x `num` lanes' are read). Lane l receives one 32-bit register
/// per matrix i: elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of
/// it, the first in the low half; with `transpose`, elements
/// (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4).
using LdMatrixRows = std::array<std::array<uint16_t, 8>, kWarpSize>;
using LdMatrixRegisters = std::array<std::array<uint32_t, 4>, kWarpSize>;
LdMatrixRegisters ldmatrix(const LdMatrixRows &rows, int num, bool transpose);

/// mma.sync .m16n8k16 .row.col with f32 accumulators: lane l (group
/// g = l / 4, t = l % 4) holds A's elements (g, 2t..2t+1), (g + 8, 2t..),
/// (g, 2t + 8..), (g + 8, 2t + 8..) in that order, B's (2t..2t+1, g) and
/// (2t + 8..2t + 9, g), and C's (g, 2t..2t+1), (g + 8, 2t..2t+1); it
/// receives D = A B + C at C's places. The products are summed exactly
/// and each sum rounded once to f32.
using MmaA = std::array<std::array<double, 8>, kWarpSize>;
using MmaB = std::array<std::array<double, 4>, kWarpSize>;
using MmaC = std::array<std::array<double, 4>, kWarpSize>;
MmaC mmaM16N8K16(const MmaA &a, const MmaB &b, const MmaC &c);

} // namespace opfuse::reference::kernel

#endif // OPFUSE_LIB_REFERENCE_KERNELWARPOPS_H
