//===- MatmulTiling.cpp - Tiles of the GEMM kernels -----------------------===//
//
// A tiling checked against the chip the kernels are compiled for: wgmma
// needs sm_90.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

std::optional<MatmulTiling> resolveMatmulTiling(StringRef text, StringRef chip,
                                                std::string &error) {
  const bool hopper = chip == "sm_90" || chip == "sm_90a";
  if (text == "auto")
    text = hopper ? "wgmma:128x256x64/2x1/4" : "128x128x32/2x2/4";
  std::optional<MatmulTiling> tiling = parseMatmulTiling(text, error);
  if (tiling && tiling->instruction == MmaInstruction::Warpgroup && !hopper) {
    error =
        "wgmma needs sm_90 (the kernels are compiled for " + chip.str() + ")";
    return std::nullopt;
  }
  return tiling;
}

} // namespace opfuse
