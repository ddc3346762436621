//===- GemmMmaSync.cpp - The mma.sync schedule ----------------------------===//
//
// One output tile per block of WM x WN warps. Every thread's cp.async
// copies run `stages - 1` K slices ahead, one commit group per slice; each
// iteration waits for its slice and one barrier both publishes it and
// frees the stage the next copy overwrites. Each warp multiplies its part
// of the tile with m16n8k16 MMAs on ldmatrix fragments into f32
// accumulators held in registers (the scf.for's iteration arguments); f32
// operands take a K step of 8 as TF32 MMAs or as FMAs.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"
#include "GridDependencies.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace opfuse::gemm {

/// One K step of 8 for f32 operands in the mma.sync kernel's fragment
/// layout: thread (group8, quad) of a warp holds A rows group8 and
/// group8 + 8 at columns quad and quad + 4 of each m16 tile, and B rows quad
/// and quad + 4 at column group8 of each n8 tile; its accumulators are
/// rows group8 and group8 + 8 at columns 2 quad and 2 quad + 1. With TF32
/// the fragments go to mma.sync m16n8k8 (rounded to TF32 first); without,
/// the thread computes its accumulators itself with f32 FMAs, reading the
/// A and B elements they need.
void emitF32Step(GemmBuilder &gb, const Operand &a, const Operand &bOp,
                 Value aBase, Value bBase, Value smem, Value warpRow,
                 Value warpCol, Value quad, Value group8, int64_t kk,
                 int64_t mTiles, int64_t nTiles, bool tf32,
                 SmallVector<Value> &acc) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  auto load = [&](const Operand &op, Value base, Value mn, Value k) {
    Value row = op.kContiguous ? mn : k, col = op.kContiguous ? k : mn;
    Value offset = gb.add(base, gb.tileOffset(op, row, col));
    return LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                gb.sharedPointer(smem, offset), 4)
        .getResult();
  };
  auto f32 = b.getF32Type();
  if (tf32) {
    auto toTF32 = [&](Value x) {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange{x},
                 "cvt.rna.tf32.f32 $0, $1;", "=r,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
          .getResult(0);
    };
    SmallVector<SmallVector<Value>> aFragments, bFragments;
    for (int64_t i = 0; i < mTiles; ++i) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16), group8));
      Value m8 = gb.add(m, gb.i32(8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      aFragments.push_back(
          {toTF32(load(a, aBase, m, k)), toTF32(load(a, aBase, m8, k)),
           toTF32(load(a, aBase, m, k4)), toTF32(load(a, aBase, m8, k4))});
    }
    for (int64_t j = 0; j < nTiles; ++j) {
      Value n = gb.add(warpCol, gb.add(gb.i32(j * 8), group8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      bFragments.push_back(
          {toTF32(load(bOp, bBase, n, k)), toTF32(load(bOp, bBase, n, k4))});
    }
    auto structType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        MutableArrayRef<Value> c(&acc[(i * nTiles + j) * 4], 4);
        Value d = NVVM::MmaOp::create(
            b, loc, structType, aFragments[i], bFragments[j], c, {16, 8, 8},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                          NVVM::MMATypes::tf32},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t e = 0; e < 4; ++e)
          c[e] = LLVM::ExtractValueOp::create(b, loc, d, e);
      }
    return;
  }
  // SIMT: A rows group8 and group8 + 8 of each m16 tile, B columns 2 quad
  // and 2 quad + 1 of each n8 tile, over the 8 K of this step.
  SmallVector<SmallVector<Value>> aRows, bCols;
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16 + half * 8), group8));
      SmallVector<Value> row;
      for (int64_t k = 0; k < 8; ++k)
        row.push_back(load(a, aBase, m, gb.i32(kk + k)));
      aRows.push_back(std::move(row));
    }
  for (int64_t j = 0; j < nTiles; ++j)
    for (int64_t pair = 0; pair < 2; ++pair) {
      Value n = gb.add(warpCol,
                       gb.add(gb.i32(j * 8 + pair), gb.mul(quad, gb.i32(2))));
      SmallVector<Value> col;
      for (int64_t k = 0; k < 8; ++k)
        col.push_back(load(bOp, bBase, n, gb.i32(kk + k)));
      bCols.push_back(std::move(col));
    }
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t e = 0; e < 4; ++e) {
        Value &c = acc[(i * nTiles + j) * 4 + e];
        ArrayRef<Value> row = aRows[i * 2 + e / 2], col = bCols[j * 2 + e % 2];
        for (int64_t k = 0; k < 8; ++k)
          c = math::FmaOp::create(b, loc, row[k], col[k], c);
      }
}

/// The first `stages - 1` slices of tile `c` in flight before the main
/// loop, one commit group each; `globalSlice` maps a split's slice to K,
/// `splitSlices` (i32, null without split-K) is how many the block has.
/// Under early launch the operands no kernel writes (the model's inputs)
/// are copied first, as one commit group older than every other, so the
/// loop's waits, which count the newest groups, hold as they are; then the
/// wait for the grids before, then the other operands.
static void emitPrologueCopies(GemmKernelEmission &k, const TileCoordinates &c,
                               llvm::function_ref<Value(Value)> globalSlice,
                               Value splitSlices) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  // A's and B's copies as asked; one commit group per slice, or one for
  // all (`oneGroup`).
  auto copy = [&](bool copyA, bool copyB, bool oneGroup) {
    for (int64_t s = 0; s + 1 < k.t.stages; ++s) {
      if (splitSlices) {
        auto exists = scf::IfOp::create(b, loc, gb.lt(gb.i32(s), splitSlices),
                                        /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&exists.getThenRegion().front());
        k.copyInto(c, globalSlice(gb.i32(s)), gb.i32(s), copyA, copyB);
      } else if (s < k.slices) {
        k.copyInto(c, globalSlice(gb.i32(s)), gb.i32(s), copyA, copyB);
      }
      if (!oneGroup)
        NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    if (oneGroup)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };
  if (k.waitsItself) {
    if (k.earlyA || k.earlyB)
      copy(k.earlyA, k.earlyB, /*oneGroup=*/true);
    emitWaitForPriorGrids(b, loc);
  }
  copy(!k.earlyA, !k.earlyB, /*oneGroup=*/false);
}

MainLoop emitMmaSyncMainLoop(GemmKernelEmission &k, bool allowTF32) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  const MatmulTiling &t = k.t;
  const Operand &a = k.problem.a, &bOp = k.problem.b;
  const Type elementType = k.problem.elementType;
  const int64_t mTiles = k.mTiles, nTiles = k.nTiles, slices = k.slices;
  const int64_t stageBytes = k.problem.stageBytes;
  Value smem = k.smem, lane = k.lane, warpRow = k.warpRow, warpCol = k.warpCol;
  auto toI32 = [&](Value index) { return gb.toI32(index); };

  MainLoop result;
  // Split-K: block b computes split b % splitK of tile b / splitK, the K
  // slices [split * perSplit, min((split + 1) * perSplit, slices)); the
  // loop below counts slices from the split's first.
  const int64_t perSplit = llvm::divideCeil(slices, t.splitK);
  Value firstSlice, splitSlices;
  result.tileId = k.blockId;
  if (t.splitK > 1) {
    result.split = gb.remu(k.blockId, t.splitK);
    result.tileId = gb.divu(k.blockId, t.splitK);
    firstSlice = gb.mul(result.split, gb.i32(perSplit));
    Value left = arith::SubIOp::create(b, loc, gb.i32(slices), firstSlice);
    splitSlices = arith::MaxSIOp::create(
        b, loc, gb.i32(0),
        arith::MinSIOp::create(b, loc, gb.i32(perSplit), left));
  }
  auto globalSlice = [&](Value local) {
    return firstSlice ? gb.add(firstSlice, local) : local;
  };
  result.current = k.coordinatesOf(result.tileId);
  const TileCoordinates &current = result.current;
  auto copyStage = [&](Value slice, Value stage) {
    k.copyInto(current, globalSlice(slice), stage);
  };
  SmallVector<Value> &acc = result.acc;
  emitPrologueCopies(k, current, globalSlice, splitSlices);
  // Per-row statistics once, before the loop: the first slices' copies are
  // in flight meanwhile.
  std::optional<PrologueRows> rowValues;
  if (!k.problem.prologue.statistics.empty()) {
    FailureOr<PrologueRows> computed = emitPrologueStatistics(
        k, current, gb.i32(0), t.blockM, k.thread, k.threads);
    if (failed(computed))
      result.failed = true;
    else
      rowValues = std::move(*computed);
  }

  const int64_t accumulators = mTiles * nTiles * 4;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> init(accumulators, zero);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper =
      splitSlices
          ? arith::IndexCastUIOp::create(b, loc, b.getIndexType(), splitSlices)
                .getResult()
          : arith::ConstantIndexOp::create(b, loc, slices).getResult();
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *loopBody = openLoopBody(b, loop);
    Value slice = toI32(loop.getInductionVar());
    // The prologue's other inputs (a norm's scale) load while the slice
    // is awaited: on a skinny GEMM each is an L2 round trip a slice.
    std::optional<SmallVector<PrologueInputLanes>> inputs;
    if (!k.problem.prologue.ops.empty()) {
      FailureOr<SmallVector<PrologueInputLanes>> loaded =
          emitPrologueInputLoads(k, current, globalSlice(slice), gb.i32(0),
                                 t.blockM, k.thread, k.threads,
                                 rowValues ? &*rowValues : nullptr);
      if (failed(loaded))
        result.failed = true;
      else
        inputs = std::move(*loaded);
    }
    // Slice `slice` has landed (at most stages - 2 newer groups pending),
    // and every warp is done with the stage the next copy overwrites.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, t.stages - 2);
    gpu::BarrierOp::create(b, loc);
    if (splitSlices)
      gb.prefetch(slice, t.stages - 1, splitSlices, copyStage);
    else
      gb.prefetch(slice, t.stages - 1, slices, copyStage);
    if (!k.problem.prologue.ops.empty()) {
      // The prologue rewrites the slice; a second barrier publishes it.
      result.failed |= failed(emitPrologueSlice(
          k, current, globalSlice(slice), gb.remu(slice, t.stages), gb.i32(0),
          t.blockM, k.thread, k.threads, rowValues ? &*rowValues : nullptr,
          inputs ? &*inputs : nullptr));
      gpu::BarrierOp::create(b, loc);
    }

    Value stageBase = gb.mul(gb.remu(slice, t.stages), gb.i32(stageBytes));
    Value aBase = gb.add(stageBase, gb.i32(a.stageOffset));
    Value bBase = gb.add(stageBase, gb.i32(bOp.stageOffset));
    Value matrix = gb.divu(lane, 8), rowInMatrix = gb.remu(lane, 8);
    Value matrixLow = gb.remu(matrix, 2), matrixHigh = gb.divu(matrix, 2);
    SmallVector<Value> acc(loopBody->getArguments().drop_front());
    if (elementType.isF32()) {
      Value quad = gb.remu(lane, 4), group8 = gb.divu(lane, 4);
      for (int64_t kk = 0; kk < t.blockK; kk += 8)
        emitF32Step(gb, a, bOp, aBase, bBase, smem, warpRow, warpCol, quad,
                    group8, kk, mTiles, nTiles, allowTF32, acc);
    }
    for (int64_t kk = 0; kk < t.blockK && !elementType.isF32(); kk += 16) {
      // A fragments: matrices (m0, k0), (m8, k0), (m0, k8), (m8, k8).
      SmallVector<SmallVector<Value>> aFragments;
      for (int64_t i = 0; i < mTiles; ++i) {
        Value m = gb.add(warpRow, gb.i32(i * 16));
        Value offset = gb.ldmatrixOffset(a, aBase, m, kk, matrixLow, matrixHigh,
                                         rowInMatrix);
        aFragments.push_back(gb.loadMatrices(smem, offset, !a.kContiguous));
      }
      // B fragments, two n8 tiles per ldmatrix.x4: (n0, k0), (n0, k8),
      // (n8, k0), (n8, k8).
      SmallVector<SmallVector<Value>> bFragments;
      for (int64_t j = 0; j < nTiles; j += 2) {
        Value n = gb.add(warpCol, gb.i32(j * 8));
        Value offset = gb.ldmatrixOffset(bOp, bBase, n, kk, matrixHigh,
                                         matrixLow, rowInMatrix);
        SmallVector<Value> four =
            gb.loadMatrices(smem, offset, !bOp.kContiguous);
        bFragments.push_back({four[0], four[1]});
        bFragments.push_back({four[2], four[3]});
      }
      for (int64_t i = 0; i < mTiles; ++i)
        for (int64_t j = 0; j < nTiles; ++j) {
          MutableArrayRef<Value> c(&acc[(i * nTiles + j) * 4], 4);
          SmallVector<Value> d = gb.mma(aFragments[i], bFragments[j], c);
          llvm::copy(d, c.begin());
        }
    }
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  // The next kernel may launch under the split-K sums and the epilogue.
  if (k.waitsItself)
    emitLaunchDependents(b, loc);
  llvm::append_range(acc, loop.getResults());
  return result;
}

} // namespace opfuse::gemm
