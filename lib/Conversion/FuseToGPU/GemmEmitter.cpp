//===- GemmEmitter.cpp - Tensor-core GEMM kernels from fuse.group ---------===//
//
// A block owns one output tile of one batch element at a time (a
// persistent wgmma block walks several). K is walked in slices copied
// into a ring of shared-memory stages ahead of the one the warps
// multiply, so the copies overlap the tensor cores: by every thread's
// cp.async copies of 16-byte chunks (GemmBuilder.h), or, for the wgmma
// kernel where tensor maps allow, by one thread's TMA copies (GemmTma.cpp;
// a producer warpgroup's when warp-specialised). The schedule decided in
// GemmSchedule.cpp picks the main loop; the epilogue evaluates the group's
// elementwise ops on the accumulators before the only store.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "GemmEmission.h"
#include "GridDependencies.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

GemmKernelEmission::GemmKernelEmission(GroupOp group, GemmProblem &problem,
                                       const MatmulTiling &tiling,
                                       GemmScheduleAttr schedule, OpBuilder &b,
                                       KernelBuilder &kb, GemmBuilder &gb,
                                       Block &entry, Value smem)
    : group(group), problem(problem), t(tiling), b(b), loc(group.getLoc()),
      kb(kb), gb(gb), entry(entry), smem(smem) {
  const GemmScheduleKind kind = schedule.getKind();
  warpgroups = t.instruction == MmaInstruction::Warpgroup;
  tma = schedule.getFeed() == GemmOperandFeed::tma;
  persistent = schedule.isPersistent();
  warpSpecialized = kind == GemmScheduleKind::warp_specialized ||
                    kind == GemmScheduleKind::ping_pong;
  pingPonged = kind == GemmScheduleKind::ping_pong;
  threads = t.threads();
  // Accumulators: each warp holds mTiles x nTiles m16n8 tiles (4 f32 a
  // thread each); a warpgroup's m64nN result is laid out the same way, a
  // warp owning 16 of its 64 rows.
  const int64_t warpM = warpgroups ? 16 : t.blockM / t.warpsM;
  const int64_t warpN = warpgroups ? t.blockN : t.blockN / t.warpsN;
  mTiles = warpM / 16;
  nTiles = warpN / 8;
  // The rows an m-tile of the accumulators steps: 16 rows per warp, or a
  // ping-pong warpgroup's 64-row blocks.
  mTileRows = pingPonged ? 64 : 16;
  accMTiles = pingPonged ? 2 : mTiles;
  const GemmShape &shape = problem.shape;
  tilesM = llvm::divideCeil(shape.m, t.blockM);
  tilesN = llvm::divideCeil(shape.n, t.blockN);
  tilesPerBatch = tilesM * tilesN;
  totalTiles = shape.batch * tilesPerBatch;
  slices = llvm::divideCeil(shape.k, t.blockK);
  // The stages' mbarriers follow the stages in shared memory.
  barrierOffset = t.stages * problem.stageBytes;
  emptyOffset = barrierOffset + 8 * t.stages;
}

void GemmKernelEmission::emitPreamble() {
  thread = gb.toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  blockId = gb.toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  lane = gb.remu(thread, 32);
  warp = gb.divu(thread, 32);
  if (tma) {
    initTmaBarriers(gb, smem, barrierOffset, t.stages, thread,
                    !warpSpecialized ? 0
                    : pingPonged     ? 128
                                     : 128 * t.warpsM);
    const unsigned firstMap = group.getNumOperands() + group.getNumResults();
    tmaCopies.push_back(
        {&problem.a, *problem.tmaA, entry.getArgument(firstMap), Value()});
    tmaCopies.push_back(
        {&problem.b, *problem.tmaB, entry.getArgument(firstMap + 1), Value()});
  }
  warpRow = pingPonged ? gb.mul(gb.remu(warp, 4), gb.i32(16))
            : warpgroups
                ? gb.add(gb.mul(gb.divu(warp, 4), gb.i32(64)),
                         gb.mul(gb.remu(warp, 4), gb.i32(16)))
                : gb.mul(gb.divu(warp, t.warpsN), gb.i32(t.blockM / t.warpsM));
  warpCol = warpgroups
                ? gb.i32(0)
                : gb.mul(gb.remu(warp, t.warpsN), gb.i32(t.blockN / t.warpsN));
  initialRingBase = gb.i32(0);
  initialNextRingBase = gb.i32(0);
}

TileCoordinates GemmKernelEmission::coordinatesOf(Value tileId) {
  constexpr int64_t groupRows = 8;
  TileCoordinates c;
  c.batch = gb.divu(tileId, tilesPerBatch);
  Value tile = gb.remu(tileId, tilesPerBatch);
  Value groupId = gb.divu(tile, groupRows * tilesN);
  Value firstRow = gb.mul(groupId, gb.i32(groupRows));
  Value rowsInGroup = arith::MinUIOp::create(
      b, loc, gb.i32(groupRows),
      arith::SubIOp::create(b, loc, gb.i32(tilesM), firstRow));
  Value inGroup = gb.remu(tile, groupRows * tilesN);
  Value tileRow =
      gb.add(firstRow, arith::RemUIOp::create(b, loc, inGroup, rowsInGroup));
  Value tileCol = arith::DivUIOp::create(b, loc, inGroup, rowsInGroup);
  c.tileM = gb.mul(tileRow, gb.i32(t.blockM));
  c.tileN = gb.mul(tileCol, gb.i32(t.blockN));
  if (!problem.batchShape.empty())
    c.batchIndices = kb.decompose(gb.toIndexType(c.batch), problem.batchShape);
  auto batchOffsetOf = [&](ArrayRef<int64_t> strides) {
    Value offset = kb.constant(0);
    for (auto [d, stride] : llvm::enumerate(strides))
      if (stride != 0)
        offset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(b, loc, c.batchIndices[d],
                                  kb.constant(stride)));
    return offset;
  };
  c.aBatch = batchOffsetOf(problem.a.batchStrides);
  c.bBatch = batchOffsetOf(problem.b.batchStrides);
  return c;
}

void GemmKernelEmission::copyInto(const TileCoordinates &c, Value slice,
                                  Value stage, bool copyA, bool copyB) {
  Value stageBase = gb.mul(stage, gb.i32(problem.stageBytes));
  if (copyA)
    gb.copySlice(problem.a, slice, stageBase, thread, c.tileM, c.aBatch, smem);
  if (copyB)
    gb.copySlice(problem.b, slice, stageBase, thread, c.tileN, c.bBatch, smem);
}

void GemmKernelEmission::issueInto(const TileCoordinates &c, Value slice,
                                   Value ring) {
  if (!tma)
    return copyInto(c, slice, gb.remu(ring, t.stages));
  tmaCopies[0].tileStart = c.tileM;
  tmaCopies[1].tileStart = c.tileN;
  issueTmaSlice(gb, tmaCopies, smem, barrierOffset,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                      gb.i32(0)),
                slice, ring, c.batchIndices);
}

void GemmKernelEmission::issuePrologueOf(Value tile, Value ring) {
  auto exists = scf::IfOp::create(b, loc, gb.lt(tile, gb.i32(totalTiles)),
                                  /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&exists.getThenRegion().front());
  TileCoordinates c = coordinatesOf(tile);
  auto issue = [&](Value slice, Value ringPosition) {
    issueInto(c, slice, ringPosition);
  };
  issueWarpgroupPrologue(gb, t, slices, SliceFeed{issue, tma, barrierOffset},
                         ring);
}

namespace {

/// Under early launch, the mma.sync kernel places its own wait: after the
/// copies of its first slices of the operands that are model inputs (no
/// kernel writes them), so that streaming the weights starts under the
/// previous kernel's tail. (Prefetching the rest of a block's B slices
/// into the L2 there as well was measured slower: Llama's decode block
/// 74.7 us against 67.3 us with these copies alone, on an H200.)
void decideEarlyCopies(GemmKernelEmission &k, GemmScheduleKind kind,
                       const EmitContext &context) {
  const bool mmaSync = kind == GemmScheduleKind::mma_sync ||
                       kind == GemmScheduleKind::tf32 ||
                       kind == GemmScheduleKind::fma;
  if (!context.options.earlyLaunch || !mmaSync ||
      !hasGridDependencyControl(context.target.chip))
    return;
  k.waitsItself = true;
  k.earlyA = isModelInput(k.group, k.problem.lhsArg);
  k.earlyB = isModelInput(k.group, k.problem.rhsArg);
}

class GemmEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "gemm"; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    if (!llvm::any_of(ops, isGemmContraction))
      return EmitterMatch::notMine();
    std::string why;
    if (analyzeGemmKernel(ops, why))
      return EmitterMatch::accept();
    return EmitterMatch::refuse(why);
  }

  std::string describeRefusal(const EmitterMatch &refusal) const override {
    return "not one GEMM kernel: " + refusal.reason;
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    // A GEMM whose chunks alternate with all_reduce chunks on another
    // stream (fuse-window-collectives) leaves SMs to NCCL: it is tiled and
    // its persistent grid sized for the rest.
    const GpuTarget target =
        withSmsSetAside(context.target, getOverlapSms(group));
    FailureOr<MatmulTiling> tiling =
        chooseGemmTiling(group, context.options, target);
    if (failed(tiling))
      return failure();
    FailureOr<GemmProblem> problem =
        analyzeGemmProblem(group, *tiling, context.options.useTma);
    if (failed(problem))
      return failure();
    GemmDecision decision =
        decideGemmSchedule(*problem, *tiling, context.options, target);
    FuseDialect &dialect = getFuseDialect(group.getContext());
    MLIRContext *mlirContext = group.getContext();
    dialect.getMatmulTilingAttrHelper().setAttr(
        group, MatmulTilingAttr::get(mlirContext, *tiling));
    dialect.getGemmScheduleAttrHelper().setAttr(
        group,
        GemmScheduleAttr::get(mlirContext, decision.kind, decision.feed));
    return decision.launch;
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override;
};

LogicalResult GemmEmitter::emit(GroupOp group, const LaunchConfig &config,
                                gpu::GPUModuleOp module, StringRef name,
                                const EmitContext &context) const {
  // What configure decided, read back from the group.
  FuseDialect &dialect = getFuseDialect(group.getContext());
  MatmulTilingAttr tilingAttr =
      dialect.getMatmulTilingAttrHelper().getAttr(group);
  GemmScheduleAttr schedule =
      dialect.getGemmScheduleAttrHelper().getAttr(group);
  if (!tilingAttr || !schedule)
    return group.emitError("internal error: the GEMM group was not "
                           "configured before emission");
  const MatmulTiling t = tilingAttr.getTiling();
  const bool tma = schedule.getFeed() == GemmOperandFeed::tma;
  FailureOr<GemmProblem> analyzed = analyzeGemmProblem(group, t, tma);
  if (failed(analyzed))
    return failure();
  GemmProblem &problem = *analyzed;
  if (tma && !problem.hasTensorMaps())
    return group.emitError("internal error: a TMA schedule for operands "
                           "without tensor maps");

  Type indexType = indexTypeForBuffers(group);
  OpBuilder b(group.getContext());
  Location loc = group.getLoc();

  // After the buffers: two tensor maps (TMA), or the split-K workspace and
  // counters.
  const unsigned firstExtra = group.getNumOperands() + group.getNumResults();
  const bool splitK = t.splitK > 1;
  gpu::GPUFuncOp func =
      createKernel(b, group, module, name, config.block, tma || splitK ? 2 : 0);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  kb.setStrictNumerics(context.options.strictNumerics());
  GemmBuilder gb(b, loc, kb, t, problem.elementType);
  problem.a.pointer = entry.getArgument(problem.lhsArg.getArgNumber());
  problem.b.pointer = entry.getArgument(problem.rhsArg.getArgNumber());
  // All stages live in the dynamic shared memory.
  Value smem = dynamicSharedMemory(b, loc, module);

  GemmKernelEmission kernel(group, problem, t, schedule, b, kb, gb, entry,
                            smem);
  decideEarlyCopies(kernel, schedule.getKind(), context);
  kernel.emitPreamble();
  MainLoop loop;
  switch (schedule.getKind()) {
  case GemmScheduleKind::mma_sync:
  case GemmScheduleKind::fma:
    loop = emitMmaSyncMainLoop(kernel, /*tf32=*/false);
    break;
  case GemmScheduleKind::tf32:
    loop = emitMmaSyncMainLoop(kernel, /*tf32=*/true);
    break;
  case GemmScheduleKind::wgmma:
  case GemmScheduleKind::cooperative:
    loop = emitCooperativeMainLoop(kernel);
    break;
  case GemmScheduleKind::warp_specialized:
  case GemmScheduleKind::ping_pong:
    loop = emitWarpSpecializedMainLoop(kernel);
    break;
  }
  if (loop.failed)
    return failure();
  OpBuilder::InsertionGuard guard(b);
  if (splitK) {
    if (!loop.split)
      return group.emitError("internal error: a split-K tiling reached a "
                             "main loop without splits");
    emitSplitKReduction(kernel, loop, entry.getArgument(firstExtra),
                        entry.getArgument(firstExtra + 1));
  }
  return emitGemmEpilogue(kernel, loop, context.options.vectorStores);
}

} // namespace
} // namespace opfuse::gemm

namespace opfuse {

std::unique_ptr<KernelEmitter> createGemmEmitter() {
  return std::make_unique<gemm::GemmEmitter>();
}

} // namespace opfuse
