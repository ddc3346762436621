//===- MatmulEmitter.cpp - Tensor-core GEMM kernels from fuse.group -------===//
//
// A block owns one output tile of one batch element at a time (a
// persistent wgmma block walks several). K is walked in slices copied
// into a ring of shared-memory stages ahead of the one the warps
// multiply, so the copies overlap the tensor cores: by every thread's
// cp.async copies of 16-byte chunks (GemmBuilder.h), or, for the wgmma
// kernel where tensor maps allow, by one thread's TMA copies (GemmTma.cpp;
// a producer warpgroup's with --warp-specialize, GemmWarpSpecialized.cpp).
// With mma.sync (this file's K loop) each warp multiplies its part of the
// tile with m16n8k16 MMAs on ldmatrix fragments into f32 accumulators held
// in registers (the scf.for's iteration arguments); the wgmma loop and the
// f32 step are in GemmMainLoops.cpp. The epilogue evaluates the group's
// elementwise ops on the accumulators before the only store.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/MatmulEmitter.h"

#include "GemmBuilder.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace opfuse::fuse;
using namespace opfuse::gemm;

namespace opfuse {

bool isGemmKernel(GroupOp group) { return findContraction(group) != nullptr; }

namespace {

constexpr const char *kDynamicShared = "opfuse_dynamic_shared";

} // namespace

FailureOr<LaunchConfig> emitGemmKernel(GroupOp group, gpu::GPUModuleOp module,
                                       StringRef name, const MatmulTiling &t,
                                       bool allowTF32,
                                       const GpuTarget *target,
                                       bool useTma, bool warpSpecialize,
                                       bool pingPong) {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  std::string why;
  Operation *contraction = analyzeGemmKernel(ops, why);
  if (!contraction)
    return group.emitError("not one GEMM kernel: ") << why;
  auto matmul = dyn_cast<MatmulOp>(contraction);
  auto conv = dyn_cast<Conv2DOp>(contraction);
  Value lhs = contraction->getOperand(0), rhs = contraction->getOperand(1);
  Type elementType = cast<RankedTensorType>(lhs.getType()).getElementType();
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32())
    return contraction->emitError("the GEMM kernels take bf16, f16 or f32 "
                                  "operands; ")
           << elementType << " " << contraction->getName().stripDialect()
           << "s are not supported for GPU emission";
  const int64_t elementBytes = getElementByteSize(elementType);
  if (elementType.isF32() && t.instruction == MmaInstruction::Warpgroup)
    return contraction->emitError("wgmma tilings take bf16 or f16 operands; "
                                  "give f32 an mma.sync tiling (e.g. ")
           << formatMatmulTiling(MatmulTiling()) << ")";
  if (t.sharedBytes(elementBytes) > kMaxSharedBytesPerBlock)
    return contraction->emitError("matmul-tiling ")
           << formatMatmulTiling(t) << " needs "
           << t.sharedBytes(elementBytes) << " bytes of shared memory for "
           << elementType << " operands; an sm_90 block has at most "
           << kMaxSharedBytesPerBlock;
  if (conv && conv.getGroups() != 1)
    return conv.emitError("grouped conv2d (groups = ")
           << conv.getGroups() << ") is not yet supported for GPU emission";
  auto lhsArg = dyn_cast<BlockArgument>(lhs);
  auto rhsArg = dyn_cast<BlockArgument>(rhs);
  if (!lhsArg || !rhsArg)
    return contraction->emitError("a GEMM kernel reads its operands from "
                                  "memory; they must be inputs of the group");

  auto output = cast<RankedTensorType>(contraction->getResult(0).getType());
  // A conv2d's output [N, OH, OW, F] is the GEMM's M x N, unbatched.
  ArrayRef<int64_t> batchShape =
      conv ? ArrayRef<int64_t>() : output.getShape().drop_back(2);
  const GemmShape shape = getGemmShape(contraction);
  const bool warpgroups = t.instruction == MmaInstruction::Warpgroup;
  const int64_t threads = t.threads();
  // Accumulators: each warp holds mTiles x nTiles m16n8 tiles (4 f32 a
  // thread each); a warpgroup's m64nN result is laid out the same way, a
  // warp owning 16 of its 64 rows.
  const int64_t warpM = warpgroups ? 16 : t.blockM / t.warpsM;
  const int64_t warpN = warpgroups ? t.blockN : t.blockN / t.warpsN;
  const int64_t mTiles = warpM / 16, nTiles = warpN / 8;

  Operand a, bOp;
  a.mn = shape.m;
  a.k = shape.k;
  a.tileMN = t.blockM;
  bOp.mn = shape.n;
  bOp.k = shape.k;
  bOp.tileMN = t.blockN;
  if (matmul) {
    a.kContiguous = !matmul.getTransposeA();
    a.batchStrides = batchStridesOf(matmul.getLhs().getType(), batchShape);
    bOp.kContiguous = matmul.getTransposeB();
    bOp.batchStrides = batchStridesOf(matmul.getRhs().getType(), batchShape);
    a.chunk = chunkFor(a.leading(), elementBytes);
  } else {
    // The filter [F, KH, KW, C] is B stored N x K, K-contiguous.
    ArrayRef<int64_t> in = conv.getInput().getType().getShape();
    ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
    ArrayRef<int64_t> strides = conv.getStrides(), dilation = conv.getDilation(),
                      padding = conv.getPadding();
    a.kContiguous = bOp.kContiguous = true;
    a.im2col = Operand::Im2Col{in[1],          in[2],       in[3],
                               filter[2],      output.getDimSize(1),
                               output.getDimSize(2),        strides[0],
                               strides[1],     dilation[0], dilation[1],
                               padding[0],     padding[2]};
    a.chunk = chunkFor(in[3], elementBytes);
  }
  bOp.chunk = chunkFor(bOp.leading(), elementBytes);
  bOp.stageOffset = t.blockM * t.blockK * elementBytes;
  const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * elementBytes;

  // TMA feeds the warpgroup MMAs when both operands have a tensor map;
  // the stages' mbarriers follow the stages in shared memory.
  std::optional<TmaOperand> tmaA, tmaB;
  if (warpgroups && useTma) {
    tmaA = tmaOperandFor(a, t, elementBytes, batchShape,
                         lhsArg.getArgNumber());
    tmaB = tmaOperandFor(bOp, t, elementBytes, batchShape,
                         rhsArg.getArgNumber());
  }
  const bool tma = tmaA && tmaB;
  const int64_t barrierOffset = t.stages * stageBytes;
  const int64_t emptyOffset = barrierOffset + 8 * t.stages;
  // A persistent wgmma kernel: one block per SM slot walks the tiles
  // blockId, blockId + grid, ... Cooperative, the MMA warpgroups copy too,
  // and issue their next tile's first slices before the current tile's
  // epilogue, so that they land while the epilogue computes and stores.
  // With TMA and two MMA warpgroups it is warp-specialised by default: a
  // third warpgroup's first thread streams the slices
  // (GemmWarpSpecialized.cpp; 1-5% faster on the H200,
  // docs/benchmarks.md), and with `pingPong` the two MMA warpgroups also
  // take alternate tiles.
  auto residentBlocks = [&](int64_t extraThreads) -> int64_t {
    if (!target)
      return 0;
    return target->smCount *
           residentBlocksPerSm(t, elementBytes, *target, extraThreads);
  };
  const bool persistent = warpgroups && residentBlocks(0) > 0;
  // Ping-pong: each of the two MMA warpgroups owns a whole tile (both of
  // its 64-row blocks, twice the accumulators), and they take the block's
  // tiles in turn: one stores its epilogue while the other multiplies.
  const bool pingPongTiles = pingPong && t.warpsM == 2 && t.blockN <= 128;
  const bool warpSpecialized = (warpSpecialize || pingPongTiles) && tma &&
                               persistent && t.warpsM == 2 &&
                               residentBlocks(128) > 0;
  const bool pingPonged = pingPongTiles && warpSpecialized;
  // The rows an m-tile of the accumulators steps: 16 rows per warp, or a
  // ping-pong warpgroup's 64-row blocks.
  const int64_t mTileRows = pingPonged ? 64 : 16;
  const int64_t accMTiles = pingPonged ? 2 : mTiles;
  const int64_t blockThreads = threads + (warpSpecialized ? 128 : 0);
  const int64_t maxResidentBlocks =
      residentBlocks(warpSpecialized ? 128 : 0);

  int64_t largest = 0;
  for (Type type : llvm::concat<const Type>(group.getInputs().getTypes(),
                                           group.getResultTypes()))
    largest = std::max(largest, getNumElements(type));
  Type indexType = indexTypeFor(group.getContext(), largest);

  OpBuilder b(group.getContext());
  Location loc = group.getLoc();

  // The dynamic shared memory all stages live in, declared once per module.
  auto sharedPointerType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  if (!module.lookupSymbol(kDynamicShared)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc,
                           LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kDynamicShared, Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }

  gpu::GPUFuncOp func =
      createKernel(b, group, module, name, blockThreads, tma ? 2 : 0);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  GemmBuilder gb(b, loc, kb, t, elementType);
  a.pointer = entry.getArgument(lhsArg.getArgNumber());
  bOp.pointer = entry.getArgument(rhsArg.getArgNumber());
  Value smem = LLVM::AddressOfOp::create(b, loc, sharedPointerType,
                                         kDynamicShared);

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  Value thread = toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value blockId = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value lane = gb.remu(thread, 32);
  Value warp = gb.divu(thread, 32);
  SmallVector<TmaCopy, 2> tmaCopies;
  if (tma) {
    initTmaBarriers(gb, smem, barrierOffset, t.stages, thread,
                    !warpSpecialized ? 0 : pingPonged ? 128 : 128 * t.warpsM);
    const unsigned firstMap = group.getNumOperands() + group.getNumResults();
    tmaCopies.push_back({&a, *tmaA, entry.getArgument(firstMap), Value()});
    tmaCopies.push_back({&bOp, *tmaB, entry.getArgument(firstMap + 1), Value()});
  }
  Value warpRow =
      pingPonged ? gb.mul(gb.remu(warp, 4), gb.i32(16))
      : warpgroups
          ? gb.add(gb.mul(gb.divu(warp, 4), gb.i32(64)),
                   gb.mul(gb.remu(warp, 4), gb.i32(16)))
          : gb.mul(gb.divu(warp, t.warpsN), gb.i32(warpM));
  Value warpCol = warpgroups
                      ? gb.i32(0)
                      : gb.mul(gb.remu(warp, t.warpsN), gb.i32(warpN));

  // Blocks walk the tiles in groups of 8 tile-rows, column by column, so
  // that blocks running together share A rows and B columns in L2.
  const int64_t tilesM = llvm::divideCeil(shape.m, t.blockM);
  const int64_t tilesN = llvm::divideCeil(shape.n, t.blockN);
  const int64_t tilesPerBatch = tilesM * tilesN;
  const int64_t totalTiles = shape.batch * tilesPerBatch;
  constexpr int64_t groupRows = 8;
  struct TileCoordinates {
    Value batch, tileM, tileN, aBatch, bBatch;
    SmallVector<Value> batchIndices;
  };
  auto coordinatesOf = [&](Value tileId) {
    TileCoordinates c;
    c.batch = gb.divu(tileId, tilesPerBatch);
    Value tile = gb.remu(tileId, tilesPerBatch);
    Value groupId = gb.divu(tile, groupRows * tilesN);
    Value firstRow = gb.mul(groupId, gb.i32(groupRows));
    Value rowsInGroup = arith::MinUIOp::create(
        b, loc, gb.i32(groupRows),
        arith::SubIOp::create(b, loc, gb.i32(tilesM), firstRow));
    Value inGroup = gb.remu(tile, groupRows * tilesN);
    Value tileRow = gb.add(firstRow, arith::RemUIOp::create(b, loc, inGroup,
                                                            rowsInGroup));
    Value tileCol = arith::DivUIOp::create(b, loc, inGroup, rowsInGroup);
    c.tileM = gb.mul(tileRow, gb.i32(t.blockM));
    c.tileN = gb.mul(tileCol, gb.i32(t.blockN));
    if (!batchShape.empty())
      c.batchIndices = kb.decompose(gb.toIndexType(c.batch), batchShape);
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
    c.aBatch = batchOffsetOf(a.batchStrides);
    c.bBatch = batchOffsetOf(bOp.batchStrides);
    return c;
  };
  auto copyInto = [&](const TileCoordinates &c, Value slice, Value stage) {
    Value stageBase = gb.mul(stage, gb.i32(stageBytes));
    gb.copySlice(a, slice, stageBase, thread, c.tileM, c.aBatch, smem);
    gb.copySlice(bOp, slice, stageBase, thread, c.tileN, c.bBatch, smem);
  };
  // The warpgroup kernel's copies of a slice into a ring position.
  auto issueInto = [&](const TileCoordinates &c, Value slice, Value ring) {
    if (!tma)
      return copyInto(c, slice, gb.remu(ring, t.stages));
    tmaCopies[0].tileStart = c.tileM;
    tmaCopies[1].tileStart = c.tileN;
    issueTmaSlice(gb, tmaCopies, smem, barrierOffset,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, gb.i32(0)),
                  slice, ring, c.batch);
  };

  const int64_t slices = llvm::divideCeil(shape.k, t.blockK);
  // The first slices of `tile` (i32), when it is one, from ring position
  // `ring`: a persistent block's first tile, and each next one.
  auto issuePrologueOf = [&](Value tile, Value ring) {
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
  };
  const int64_t grid =
      persistent ? std::min(totalTiles, maxResidentBlocks) : totalTiles;
  TileCoordinates current;
  // TMA barrier phases count ring positions across a block's tiles: its
  // n-th tile's slices sit at n * slices onwards. cp.async needs no count.
  Value ringBase = gb.i32(0), nextRingBase = gb.i32(0);
  Value pingPongWarpgroup;
  if (warpSpecialized) {
    // The warp's index as ptxas can see it is the same in every lane (a
    // shuffle from lane 0): branches on it are warp-uniform. A role branch
    // on the thread index is divergent to ptxas, which then serialises the
    // wgmma instructions inside it (C7520, "compiler-inserted WG.AR in
    // divergent path").
    Value uniformWarp = NVVM::ShflOp::create(
        b, loc, b.getI32Type(), gb.i32(-1), warp, gb.i32(0), gb.i32(0x1f),
        NVVM::ShflKind::idx, UnitAttr());
    // The producer warpgroup (the last) against the MMA warpgroups.
    auto roles = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, uniformWarp,
                              gb.i32(threads / 32)),
        /*withElse=*/true);
    // The block's registers move from the producer warpgroup (which
    // needs few) to the MMA warpgroups: 40 + 2 x 232 per thread of each
    // is what 168 for all three (65536 / 384, rounded to 8) add up to.
    auto setMaxRegisters = [&](int32_t count,
                               NVVM::SetMaxRegisterAction action) {
      NVVM::SetMaxRegisterOp::create(
          b, loc, b.getI32IntegerAttr(count),
          NVVM::SetMaxRegisterActionAttr::get(b.getContext(), action));
    };
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(roles.thenBlock()->getTerminator());
      setMaxRegisters(40, NVVM::SetMaxRegisterAction::decrease);
      auto first = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                gb.i32(threads)),
          /*withElse=*/false);
      b.setInsertionPoint(first.thenBlock()->getTerminator());
      emitTmaProducer(gb, t, slices, totalTiles, smem, emptyOffset,
                      [&](Value tile, Value slice, Value ring) {
                        TileCoordinates c = coordinatesOf(tile);
                        tmaCopies[0].tileStart = c.tileM;
                        tmaCopies[1].tileStart = c.tileN;
                        issueTmaSlice(gb, tmaCopies, smem, barrierOffset,
                                      Value(), slice, ring, c.batch);
                      });
    }
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    setMaxRegisters(232, NVVM::SetMaxRegisterAction::increase);
    // Ping-pong: warpgroup g takes the block's tiles of ordinal g, g + 2, ...
    if (pingPonged)
      pingPongWarpgroup = gb.divu(uniformWarp, 4);
    TileLoop tiles =
        pingPonged ? openTileLoop(gb, totalTiles, slices,
                                  arith::IndexCastUIOp::create(
                                      b, loc, b.getIndexType(),
                                      pingPongWarpgroup),
                                  2)
                   : openTileLoop(gb, totalTiles, slices);
    current = coordinatesOf(tiles.tile);
    ringBase = tiles.ringBase;
  } else if (persistent) {
    // A block past the last tile (a grid larger than the plan's) copies
    // nothing and skips the loop.
    issuePrologueOf(blockId, ringBase);
    TileLoop tiles = openTileLoop(gb, totalTiles, slices);
    current = coordinatesOf(tiles.tile);
    // cp.async needs no ring count: its stages restart with each tile.
    if (tma) {
      ringBase = tiles.ringBase;
      nextRingBase = gb.add(ringBase, gb.i32(slices));
    }
  } else {
    current = coordinatesOf(blockId);
  }
  Value batch = current.batch, tileM = current.tileM, tileN = current.tileN;
  SmallVector<Value> batchIndices = current.batchIndices;
  auto copyStage = [&](Value slice, Value stage) {
    copyInto(current, slice, stage);
  };

  SmallVector<Value> acc;
  if (warpSpecialized) {
    acc = emitConsumerLoop(gb, t, a, bOp, slices, nTiles, smem,
                           barrierOffset, emptyOffset, ringBase,
                           pingPongWarpgroup);
  } else if (warpgroups) {
    auto issueCurrent = [&](Value slice, Value ring) {
      issueInto(current, slice, ring);
    };
    SliceFeed feed{issueCurrent, tma, barrierOffset};
    if (!persistent)
      issueWarpgroupPrologue(gb, t, slices, feed, ringBase);
    acc = emitWarpgroupLoop(gb, t, a, bOp, slices, nTiles, smem, feed,
                            ringBase);
    if (persistent) {
      // Every warpgroup is done reading the stages the next copies fill.
      gpu::BarrierOp::create(b, loc);
      auto tiles = cast<scf::ForOp>(b.getInsertionBlock()->getParentOp());
      issuePrologueOf(gb.add(toI32(tiles.getInductionVar()),
                             toI32(tiles.getStep())),
                      nextRingBase);
    }
  } else {
    // Prologue: the first stages - 1 slices in flight, one commit group each.
    for (int64_t s = 0; s + 1 < t.stages; ++s) {
      if (s < slices)
        copyStage(gb.i32(s), gb.i32(s));
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }

    const int64_t accumulators = mTiles * nTiles * 4;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    SmallVector<Value> init(accumulators, zero);
    Value lower = arith::ConstantIndexOp::create(b, loc, 0);
    Value upper = arith::ConstantIndexOp::create(b, loc, slices);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, lower, upper, step, init);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *loopBody = loop.getBody();
      if (!loopBody->empty())
        loopBody->getTerminator()->erase();
      b.setInsertionPointToStart(loopBody);
      Value slice = toI32(loop.getInductionVar());
      // Slice `slice` has landed (at most stages - 2 newer groups pending),
      // and every warp is done with the stage the next copy overwrites.
      NVVM::CpAsyncWaitGroupOp::create(b, loc, t.stages - 2);
      gpu::BarrierOp::create(b, loc);
      gb.prefetch(slice, t.stages - 1, slices, copyStage);

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
          Value offset = gb.ldmatrixOffset(a, aBase, m, kk, matrixLow,
                                           matrixHigh, rowInMatrix);
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
  llvm::append_range(acc, loop.getResults());
  }

  // Epilogue. Inputs other than the matmul's operands are read at the
  // broadcast index of the output; splat constants are scalars.
  // In argument order (not a DenseMap's pointer order): the loads, and so
  // the PTX, are the same from one compile to the next.
  llvm::MapVector<Value, InputAccess> epilogueInputs;
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    bool used = llvm::any_of(argument.getUsers(), [&](Operation *user) {
      return user != contraction;
    });
    if (!used)
      continue;
    FailureOr<InputAccess> access =
        analyzeInput(group, cast<RankedTensorType>(argument.getType()),
                     output.getShape(), index);
    if (failed(access))
      return failure();
    epilogueInputs[argument] = *access;
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  const bool pairs = shape.n % 2 == 0;
  const bool fullTiles = shape.m % t.blockM == 0 && shape.n % t.blockN == 0;
  Value group8 = gb.divu(lane, 4), quad = gb.remu(lane, 4);
  Value batchBase = arith::MulIOp::create(b, loc, gb.toIndexType(batch),
                                          kb.constant(shape.m * shape.n));

  // The epilogue inputs of `count` consecutive outputs at (row, col).
  // Loaded for a whole chunk of accumulators before any of the chunk is
  // stored: a load after a store cannot move above it (the output may
  // alias an input as far as LLVM and ptxas know), so loading per output
  // would pay one memory latency per accumulator pair. Outside a ragged
  // edge the indices are clamped to the last row and column instead of
  // guarded: the values are read and never stored.
  using Inputs = DenseMap<Value, SmallVector<Value>>;
  auto indicesOf = [&](Value row, Value col) {
    SmallVector<Value> indices(batchIndices);
    if (conv)
      indices = kb.decompose(gb.toIndexType(row), output.getShape().drop_back());
    else
      indices.push_back(gb.toIndexType(row));
    indices.push_back(gb.toIndexType(col));
    return indices;
  };
  auto loadInputs = [&](Value row, Value col, int64_t count) {
    if (!fullTiles) {
      row = arith::MinUIOp::create(b, loc, row, gb.i32(shape.m - 1));
      col = arith::MinUIOp::create(b, loc, col, gb.i32(shape.n - count));
    }
    SmallVector<Value> indices = indicesOf(row, col);
    Inputs values;
    for (auto &[argument, access] : epilogueInputs) {
      Type type = cast<RankedTensorType>(argument.getType()).getElementType();
      Value pointer = entry.getArgument(
          cast<BlockArgument>(argument).getArgNumber());
      Value offset = kb.broadcastOffset(access, access.isScalar
                                                    ? ArrayRef<Value>()
                                                    : ArrayRef<Value>(indices));
      if (access.innerContiguous && count > 1) {
        values[argument] = kb.load(pointer, type, offset, count);
      } else {
        Value one = kb.load(pointer, type, offset, 1).front();
        values[argument] = SmallVector<Value>(count, one);
      }
    }
    return values;
  };
  // Computes the group's ops on `lanes` (1 or 2 consecutive accumulators)
  // and the loaded `inputs`, and stores the results at (row, col).
  auto storeAt = [&](Value row, Value col, ArrayRef<Value> lanes,
                     Inputs values) -> LogicalResult {
    const int64_t count = lanes.size();
    values[contraction->getResult(0)] = SmallVector<Value>(lanes);
    for (Operation *op : ops) {
      if (op == contraction)
        continue;
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        values[constant.getResult()] =
            SmallVector<Value>(count, splatScalar(b, constant));
        continue;
      }
      SmallVector<Value> results;
      for (int64_t l = 0; l < count; ++l) {
        SmallVector<Value> operands;
        for (Value operand : op->getOperands())
          operands.push_back(values.lookup(operand)[l]);
        FailureOr<Value> scalar = emitScalarOp(b, op, operands);
        if (failed(scalar))
          return failure();
        results.push_back(*scalar);
      }
      values[op->getResult(0)] = std::move(results);
    }
    // In the index type: the output may hold more than 2^31 elements.
    Value offset = gb.add(
        batchBase, gb.add(gb.mul(gb.toIndexType(row), kb.constant(shape.n)),
                          gb.toIndexType(col)));
    for (auto [index, value] : llvm::enumerate(yield.getOperands()))
      kb.store(entry.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               offset, values.lookup(value));
    return success();
  };
  auto guarded = [&](Value condition, auto emit) -> LogicalResult {
    if (!condition)
      return emit();
    auto guard = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    return emit();
  };
  // One store of 1 or 2 accumulators: (row, col), and whether it lies in
  // the output (null where every tile is whole).
  struct Output {
    Value row, col;
    SmallVector<Value, 2> lanes;
    Value valid;
  };
  // A chunk is one m16 tile's rows against kEpilogueChunk n8 tiles: 16 or
  // 32 stores a thread, a few registers for the inputs of each.
  constexpr int64_t kEpilogueChunk = 8;
  for (int64_t i = 0; i < accMTiles; ++i)
    for (int64_t j0 = 0; j0 < nTiles; j0 += kEpilogueChunk) {
      SmallVector<Output> chunk;
      for (int64_t j = j0; j < std::min(nTiles, j0 + kEpilogueChunk); ++j)
        for (int64_t half = 0; half < 2; ++half) {
          Value row = gb.add(gb.add(tileM, warpRow),
                             gb.add(gb.i32(i * mTileRows + half * 8), group8));
          Value col = gb.add(gb.add(tileN, warpCol),
                             gb.add(gb.i32(j * 8), gb.mul(quad, gb.i32(2))));
          Value first = acc[(i * nTiles + j) * 4 + half * 2];
          Value second = acc[(i * nTiles + j) * 4 + half * 2 + 1];
          Value rowValid = fullTiles ? Value() : gb.lt(row, gb.i32(shape.m));
          auto validAt = [&](Value c) -> Value {
            if (fullTiles)
              return Value();
            return arith::AndIOp::create(b, loc, rowValid,
                                         gb.lt(c, gb.i32(shape.n)));
          };
          if (pairs) {
            chunk.push_back({row, col, {first, second}, validAt(col)});
            continue;
          }
          Value nextCol = gb.add(col, gb.i32(1));
          chunk.push_back({row, col, {first}, validAt(col)});
          chunk.push_back({row, nextCol, {second}, validAt(nextCol)});
        }
      SmallVector<Inputs> inputs;
      for (const Output &out : chunk)
        inputs.push_back(loadInputs(out.row, out.col, out.lanes.size()));
      for (auto [out, loaded] : llvm::zip(chunk, inputs))
        if (failed(guarded(out.valid, [&] {
              return storeAt(out.row, out.col, out.lanes, loaded);
            })))
          return failure();
    }

  LaunchConfig config;
  config.block = blockThreads;
  config.grid = grid;
  config.sharedBytes = t.sharedBytes(elementBytes);
  if (tma)
    config.tensorMaps = {tmaA->map, tmaB->map};
  if (persistent)
    config.schedule = pingPonged        ? "ping-pong"
                      : warpSpecialized ? "warp-specialized"
                                        : "cooperative";
  return config;
}

} // namespace opfuse
