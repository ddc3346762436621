//===- MatmulTiling.cpp - The tiles of a GEMM kernel ----------------------===//
//
// The checks mirror what each kernel needs: whole m16n8k16 (or m64nNk16)
// MMAs per warp (warpgroup), the 128-byte swizzled rows of the wgmma
// layout, enough stages to overlap copies with the MMAs, and the 227 KiB
// of shared memory an sm_90 block may use.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace opfuse {

std::optional<MatmulTiling> parseMatmulTiling(StringRef text,
                                              std::string &error) {
  error.clear();
  MatmulTiling tiling;
  StringRef body = text;
  if (body.consume_front("wgmma:"))
    tiling.instruction = MmaInstruction::Warpgroup;
  const bool warpgroups = tiling.instruction == MmaInstruction::Warpgroup;
  SmallVector<StringRef> parts;
  body.split(parts, '/');
  // An optional fourth part: "kP", K split among P blocks per tile.
  if (parts.size() == 4) {
    StringRef split = parts.back();
    int64_t value;
    if (!split.consume_front("k") || split.getAsInteger(10, value) ||
        value < 1 || value > 256) {
      error = "'" + text.str() +
              "': the split-K part must be kP with P from 1 to 256 (e.g. "
              "128x64x32/4x2/3/k4)";
      return std::nullopt;
    }
    tiling.splitK = value;
    parts.pop_back();
  }
  SmallVector<int64_t> values;
  for (StringRef part : parts) {
    SmallVector<StringRef> numbers;
    part.split(numbers, 'x');
    for (StringRef number : numbers) {
      int64_t value;
      // The bound keeps sharedBytes() and the kernels' index arithmetic far
      // from overflowing; no tile comes near it.
      if (number.getAsInteger(10, value) || value <= 0 || value > 65536) {
        error = "'" + text.str() +
                "' is not [wgmma:]BMxBNxBK/WMxWN/S[/kP] with positive "
                "integers of at most 65536";
        return std::nullopt;
      }
      values.push_back(value);
    }
  }
  if (parts.size() != 3 || values.size() != 6) {
    error = "'" + text.str() + "' is not [wgmma:]BMxBNxBK/WMxWN/S[/kP] (e.g. " +
            formatMatmulTiling(MatmulTiling()) + ")";
    return std::nullopt;
  }
  tiling.blockM = values[0];
  tiling.blockN = values[1];
  tiling.blockK = values[2];
  tiling.warpsM = values[3];
  tiling.warpsN = values[4];
  tiling.stages = values[5];
  const MatmulTiling &t = tiling;
  if (warpgroups) {
    if (t.warpsN != 1 || t.blockM != 64 * t.warpsM)
      error = "wgmma: each warpgroup owns 64 rows of the whole tile width, "
              "so WN must be 1 and BM = 64 x WM";
    else if (t.blockN % 64 || t.blockN > 256)
      error = "wgmma: BN must be a multiple of 64, at most 256";
    else if (t.blockK != 64)
      error = "wgmma: BK must be 64 (one 128-byte swizzled row of 16-bit "
              "elements)";
    else if (t.warpsM > 4)
      error = "at most 4 warpgroups (512 threads) per block";
    else if (t.stages < 3)
      error = "wgmma: at least 3 stages (one copied, one multiplied, one "
              "still read by the MMA in flight)";
  } else {
    const int64_t warpM = t.blockM / t.warpsM, warpN = t.blockN / t.warpsN;
    if (t.blockM % t.warpsM || warpM % 16 || t.blockN % t.warpsN || warpN % 16)
      error = "each warp's tile (BM/WM x BN/WN) must be a multiple of 16 in "
              "both dimensions";
    else if (t.blockK % 16)
      error = "BK must be a multiple of 16 (the MMA's K)";
    else if (t.warpsM * t.warpsN > 32)
      error = "at most 32 warps (1024 threads) per block";
    else if (t.stages < 2)
      error = "at least 2 stages (one copied while one is multiplied)";
  }
  if (error.empty() && t.sharedBytes() > kMaxSharedBytesPerBlock)
    error = "the stages need " + std::to_string(t.sharedBytes()) +
            " bytes of shared memory; an sm_90 block has at most " +
            std::to_string(kMaxSharedBytesPerBlock);
  if (!error.empty())
    return std::nullopt;
  return tiling;
}

std::string formatMatmulTiling(const MatmulTiling &t) {
  return ((t.instruction == MmaInstruction::Warpgroup ? "wgmma:" : "") +
          Twine(t.blockM) + "x" + Twine(t.blockN) + "x" + Twine(t.blockK) +
          "/" + Twine(t.warpsM) + "x" + Twine(t.warpsN) + "/" +
          Twine(t.stages) + (t.splitK > 1 ? "/k" + Twine(t.splitK) : Twine()))
      .str();
}

} // namespace opfuse
