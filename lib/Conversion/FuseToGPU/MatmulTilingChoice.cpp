//===- MatmulTilingChoice.cpp - The tile model behind auto tiling ---------===//
//
// A GEMM kernel's time is decided by how its output tiles fall on the SMs
// and by how many operand bytes each tile pulls through the L2 per FLOP.
// Wide tiles reuse each operand byte more but leave a larger part of the
// last wave idle and pad ragged edges more; this model weighs the two with
// the target's numbers. It ranks; --autotune measures. docs/cost-model.md
// compares its picks with the measured best.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

Operation *findContraction(Operation *kernelOp) {
  if (isGemmContraction(kernelOp))
    return kernelOp;
  if (auto group = dyn_cast<GroupOp>(kernelOp))
    for (Operation &op : group.getBody().front())
      if (isGemmContraction(&op))
        return &op;
  return nullptr;
}

namespace {

// Per-SM limits of sm_80 and sm_90 alike.
constexpr int64_t kMaxThreadsPerSm = 2048;
constexpr int64_t kRegistersPerSm = 65536;
constexpr int64_t kMaxBlocksPerSm = 32;
// What the driver reserves per resident block.
constexpr int64_t kReservedSharedPerBlock = 1024;
// Registers a thread wants besides its f32 accumulators (addresses,
// descriptors, epilogue values): ptxas gives the 128 accumulators of the
// 128x256 wgmma tile 200 registers when it may use 255.
constexpr int64_t kRegistersBesideAccumulators = 72;
constexpr int64_t kMaxRegistersPerThread = 255;

struct RegisterUse {
  int64_t wanted, given;
};
RegisterUse registerUse(const MatmulTiling &tiling) {
  const int64_t threads = tiling.threads();
  const int64_t wanted = llvm::alignTo(tiling.blockM * tiling.blockN / threads +
                                           kRegistersBesideAccumulators,
                                       8);
  const int64_t budget = std::min<int64_t>(kMaxRegistersPerThread,
                                           kRegistersPerSm / threads / 8 * 8);
  return {wanted, std::min(wanted, budget)};
}

int64_t bytesOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementTypeBitWidth(), 8);
}

/// mma.sync tilings for skinny 16-bit GEMMs (isSkinnyGemm): one tile row
/// covers M, 16 rows a warp, so that a weight streams through blocks of a
/// few hundred threads across its columns; split-K (added by the caller)
/// spreads it over all SMs. wgmma's 64-row tile would multiply mostly
/// padding, and its 64-wide tiles leave most SMs idle.
///
/// Slices of 128 K come first, where four stages of them fit: the model
/// prices them as it does slices of 64 (the same bytes and FLOPs), and
/// they measured up to 1.29x faster (half the barriers and waits a byte;
/// docs/benchmarks.md), so they take the ties. With three stages they
/// measured slower as often as faster, so none is offered.
template <typename Add>
void addSkinnyTilings(const GemmShape &shape, int64_t sharedLimit, Add &&add) {
  if (isSkinnyGemm(shape)) {
    const int64_t rows = shortestTileRows(shape, /*sixteenBit=*/true);
    for (int64_t blockN : {256, 128, 64})
      for (int64_t blockK : {128, 64}) {
        MatmulTiling tiling;
        tiling.blockM = rows;
        tiling.blockN = blockN;
        tiling.blockK = blockK;
        tiling.warpsM = 1;
        tiling.warpsN = blockN / 32;
        tiling.stages = 4;
        if (blockK == 128 && tiling.sharedBytes(2) > sharedLimit)
          continue;
        add(tiling, 2);
      }
  }
}

/// The tilings worth comparing for `shape` on `chip`, widest first.
std::vector<MatmulTiling> candidateTilings(StringRef chip,
                                           const GemmShape &shape,
                                           bool f32Operands,
                                           int64_t sharedLimit) {
  std::vector<MatmulTiling> result;
  auto addWithStages = [&](MatmulTiling tiling, int64_t elementBytes) {
    // Four stages hide a DRAM round trip behind three slices of MMAs; three
    // is the least a pipeline of copy, multiply and MMA in flight needs.
    for (int64_t stages : {4, 3}) {
      if (elementBytes == 4 && stages == 4)
        continue;
      tiling.stages = stages;
      if (tiling.sharedBytes(elementBytes) <= sharedLimit) {
        result.push_back(tiling);
        return;
      }
    }
  };
  if (f32Operands) {
    // f32 fragments are read one element at a time: warps of 32 x 32, and
    // three stages, keep what a thread holds within its registers. The
    // narrower tiles are for GEMMs too small to fill the SMs with 128x128.
    struct Shape {
      int64_t blockM, blockN;
    };
    const int64_t widestM = llvm::alignTo(shape.m, 32);
    const int64_t widestN = llvm::alignTo(shape.n, 32);
    for (Shape s :
         {Shape{128, 128}, Shape{128, 64}, Shape{64, 128}, Shape{64, 64}}) {
      if ((s.blockM > widestM && s.blockM != 64) ||
          (s.blockN > widestN && s.blockN != 64))
        continue;
      MatmulTiling f32;
      f32.blockM = s.blockM;
      f32.blockN = s.blockN;
      f32.warpsM = s.blockM / 32;
      f32.warpsN = s.blockN / 32;
      addWithStages(f32, 4);
    }
    return result;
  }
  const int64_t widestM = llvm::alignTo(shape.m, 64);
  const int64_t widestN = llvm::alignTo(shape.n, 64);
  addSkinnyTilings(shape, sharedLimit, addWithStages);
  if (chip == "sm_90" || chip == "sm_90a") {
    for (int64_t blockN : {256, 192, 128, 64}) {
      if (blockN > widestN && blockN != 64)
        continue;
      // 192 columns measured slower per FLOP than 256 or 128 with the same
      // rows (docs/cost-model.md); only when N needs no wider tile.
      if (blockN == 192 && widestN > 192)
        continue;
      for (int64_t warpgroups : {2, 4, 3, 1}) {
        if (64 * warpgroups > widestM && warpgroups != 1)
          continue;
        MatmulTiling tiling;
        tiling.instruction = MmaInstruction::Warpgroup;
        tiling.blockM = 64 * warpgroups;
        tiling.blockN = blockN;
        tiling.blockK = 64;
        tiling.warpsM = warpgroups;
        tiling.warpsN = 1;
        addWithStages(tiling, 2);
      }
    }
    return result;
  }
  struct Shape {
    int64_t blockM, blockN, warpsM, warpsN;
  };
  for (Shape s :
       {Shape{128, 256, 2, 4}, Shape{256, 128, 4, 2}, Shape{128, 128, 2, 2},
        Shape{128, 64, 2, 2}, Shape{64, 128, 2, 2}, Shape{64, 64, 2, 2}}) {
    if ((s.blockM > widestM && s.blockM != 64) ||
        (s.blockN > widestN && s.blockN != 64))
      continue;
    MatmulTiling tiling;
    tiling.blockM = s.blockM;
    tiling.blockN = s.blockN;
    tiling.blockK = 32;
    tiling.warpsM = s.warpsM;
    tiling.warpsN = s.warpsN;
    addWithStages(tiling, 2);
  }
  return result;
}

} // namespace

int64_t residentBlocksPerSm(const MatmulTiling &tiling, int64_t elementBytes,
                            const GpuTarget &target, int64_t extraThreads) {
  const int64_t threads = tiling.threads() + extraThreads;
  // ptxas gives every thread of the block the same count, at most what
  // the whole block may have.
  const int64_t registers =
      std::min(registerUse(tiling).given, kRegistersPerSm / threads / 8 * 8);
  return std::min(
      {target.sharedMemoryPerSm /
           (tiling.sharedBytes(elementBytes) + kReservedSharedPerBlock),
       kMaxThreadsPerSm / threads, kRegistersPerSm / (threads * registers),
       kMaxBlocksPerSm});
}

std::vector<TilingEstimate> rankMatmulTilings(Operation *kernelOp,
                                              StringRef chip,
                                              const GpuTarget &target) {
  std::vector<TilingEstimate> ranked;
  Operation *contraction = findContraction(kernelOp);
  if (!contraction || target.smCount <= 0)
    return ranked;
  const GemmShape shape = getGemmShape(contraction);
  Type operandElement =
      cast<RankedTensorType>(contraction->getOperand(0).getType())
          .getElementType();
  const bool f32Operands = operandElement.isF32();
  const int64_t elementBytes = f32Operands ? 4 : 2;
  const int64_t sharedLimit =
      std::min(kMaxSharedBytesPerBlock,
               target.sharedMemoryPerSm - kReservedSharedPerBlock);

  // Bytes the epilogue moves: everything the kernel reads and writes but
  // the two operands, which stream through the main loop.
  int64_t kernelBytes = 0;
  if (auto cost = dyn_cast<CostInterface>(kernelOp))
    kernelBytes = cost.getBytesRead() + cost.getBytesWritten();
  const int64_t epilogueBytes = std::max<int64_t>(
      0, kernelBytes - bytesOf(contraction->getOperand(0).getType()) -
             bytesOf(contraction->getOperand(1).getType()));

  const double flopsPerSm =
      (f32Operands ? target.fp32Flops * target.computeEfficiency
                   : target.fp16TensorFlops * target.tensorEfficiency) /
      target.smCount;
  const double l2PerSm =
      target.l2Bandwidth * target.memoryEfficiency / target.smCount;
  const double hbmPerSm =
      target.hbmBandwidth * target.memoryEfficiency / target.smCount;

  std::vector<MatmulTiling> candidates =
      candidateTilings(chip, shape, f32Operands, sharedLimit);
  // Split-K for tilings whose tiles leave SMs idle: each split keeps at
  // least kMinSlicesPerSplit K slices, so that its pipeline fills, and the
  // splits of all tiles fit in one wave. A warpgroup tiling is split only
  // when its tiles leave at least half of the SMs idle, and into equal
  // parts: split, it loses TMA and persistence (GemmSchedule.cpp), which
  // the model does not price.
  constexpr int64_t kMinSlicesPerSplit = 4;
  for (size_t i = 0, e = candidates.size(); i < e; ++i) {
    const MatmulTiling base = candidates[i];
    const bool warpgroups = base.instruction == MmaInstruction::Warpgroup;
    const int64_t tiles = countOutputTiles(shape, base);
    if (warpgroups && 2 * tiles > target.smCount)
      continue;
    const int64_t slices =
        llvm::divideCeil(std::max<int64_t>(shape.k, 1), base.blockK);
    for (int64_t splits : {2, 3, 4, 6, 8, 12, 16, 24, 32}) {
      // Splits of ceil(slices / splits) slices; fewer when the last would
      // be empty.
      const int64_t perSplit = llvm::divideCeil(slices, splits);
      if (perSplit < kMinSlicesPerSplit ||
          llvm::divideCeil(slices, perSplit) != splits ||
          (warpgroups && slices % splits != 0) ||
          tiles * splits > target.smCount * 2)
        continue;
      MatmulTiling split = base;
      split.splitK = splits;
      candidates.push_back(split);
    }
  }

  for (const MatmulTiling &tiling : candidates) {
    TilingEstimate estimate;
    estimate.tiling = tiling;
    estimate.tiles = countOutputTiles(shape, tiling);
    // A block of many threads gets fewer registers each: ptxas squeezes the
    // kernel into them (192x256 on 384 threads: 168 of the 200 wanted) at
    // the cost of recomputed addresses; the time is scaled by the ratio.
    const RegisterUse registers = registerUse(tiling);
    const double squeeze = double(registers.given) / registers.wanted;
    estimate.blocksPerSm = residentBlocksPerSm(tiling, elementBytes, target);
    if (estimate.blocksPerSm <= 0 || estimate.tiles <= 0)
      continue;
    // Ragged edges are computed in full: K is padded to whole slices, and
    // a block of a split tile walks ceil(slices / splits) of them.
    const int64_t slices =
        llvm::divideCeil(std::max<int64_t>(shape.k, 1), tiling.blockK);
    const double blockK = static_cast<double>(
        llvm::divideCeil(slices, tiling.splitK) * tiling.blockK);
    const double blockFlops = 2.0 * tiling.blockM * tiling.blockN * blockK;
    // An operand slice that no other tile reads (B when one tile row
    // covers M: a skinny GEMM's weight) streams from HBM; otherwise the
    // tiles that share it find it in the L2.
    const int64_t tilesM = llvm::divideCeil(shape.m, tiling.blockM);
    const int64_t tilesN = llvm::divideCeil(shape.n, tiling.blockN);
    const double aBytes = double(tiling.blockM) * blockK * elementBytes;
    const double bBytes = double(tiling.blockN) * blockK * elementBytes;
    const double operandSeconds = aBytes / (tilesN == 1 ? hbmPerSm : l2PerSm) +
                                  bBytes / (tilesM == 1 ? hbmPerSm : l2PerSm);
    // Added, not overlapped: the measured times of the H200's GEMM tilings
    // follow the sum (a tile with fewer operand bytes per FLOP wins even
    // where the max would call both compute-bound); docs/cost-model.md.
    double blockTime = blockFlops / flopsPerSm + operandSeconds;
    // The epilogue runs after the main loop, not under it, once per tile.
    double tileTail = double(epilogueBytes) / estimate.tiles / hbmPerSm;
    if (tiling.splitK > 1) {
      // Every block stores its f32 partial tile; the last of a tile's
      // blocks reads all of them back before the epilogue.
      const double partialBytes = 4.0 * tiling.blockM * tiling.blockN;
      blockTime += partialBytes / l2PerSm;
      tileTail += tiling.splitK * partialBytes / l2PerSm;
    }
    // Blocks resident on one SM share its tensor cores and its L2 port, so
    // an SM's time is its number of blocks times one block's; the busiest
    // SM has ceil(blocks / SMs) of them, and ceil(tiles / SMs) tails.
    const int64_t blocks = estimate.tiles * tiling.splitK;
    estimate.seconds =
        (llvm::divideCeil(blocks, target.smCount) * blockTime +
         llvm::divideCeil(estimate.tiles, target.smCount) * tileTail) /
        squeeze;
    ranked.push_back(estimate);
  }
  // Compared in whole nanoseconds, so that tilings the model cannot tell
  // apart (128x128 in 32 waves, 128x256 in 16) keep their order instead of
  // the order of a rounding error.
  auto nanoseconds = [](const TilingEstimate &e) {
    return std::llround(e.seconds * 1e9);
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const TilingEstimate &a, const TilingEstimate &b) {
                     return nanoseconds(a) < nanoseconds(b);
                   });
  return ranked;
}

std::optional<MatmulTiling> expectedGemmTiling(Operation *kernelOp,
                                               StringRef option,
                                               const GpuTarget &target,
                                               GemmTilingError *error) {
  Operation *contraction = findContraction(kernelOp);
  if (!contraction)
    return std::nullopt;
  std::string why;
  auto fail = [&](Operation *at, std::string message) {
    if (error)
      *error = {at, std::move(message)};
    return std::nullopt;
  };
  auto helper =
      getFuseDialect(kernelOp->getContext()).getMatmulTilingAttrHelper();
  for (Operation *holder : {kernelOp, contraction})
    if (MatmulTilingAttr own = helper.getAttr(holder)) {
      if (std::optional<MatmulTiling> tiling = resolveMatmulTiling(
              formatMatmulTiling(own.getTiling()), target.chip, why))
        return tiling;
      return fail(holder, (helper.getNameStr() + ": " + why).str());
    }
  if (option != "auto") {
    if (std::optional<MatmulTiling> tiling =
            resolveMatmulTiling(option, target.chip, why))
      return tiling;
    return fail(kernelOp, "matmul-tiling: " + why);
  }
  std::vector<TilingEstimate> ranked =
      rankMatmulTilings(kernelOp, target.chip, target);
  if (ranked.empty())
    return fail(kernelOp,
                "no matmul tiling fits the shared memory of " + target.name);
  return ranked.front().tiling;
}

} // namespace opfuse
