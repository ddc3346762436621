//===- TransposeEmitter.cpp - Transposes through shared-memory tiles ------===//
//
// A transpose that moves the innermost dimension cannot be read in place
// at speed: the lanes of a vector, and the threads of a warp, would read
// addresses a row apart. This emitter stages a T x T tile in shared
// memory instead (64 x 64 elements, 32 x 32 of 8-byte ones): each thread
// reads vectors along the input's innermost dimension, evaluating the
// group's prologue (the ops the transpose's operand is computed from) at
// the input's index; after a barrier it reads the tile across, evaluates
// the epilogue (the ops computed from the transposed value) at the
// output's index and stores vectors along the output's innermost
// dimension. The tile's rows are padded by one element, so both phases
// touch distinct banks. Each block owns one tile of one slice of the other
// dimensions, consecutive blocks neighbouring tiles of the output's rows;
// partial tiles at the edges are guarded.
//
// Where the output's rows do not start on 32-byte sectors (a row of 5001
// f32, say), straight tiles would write each row segment with scalars and
// share its first and last sectors with the neighbouring blocks. There the
// tiles are skewed instead (outputs of 4- and 8-byte elements; 2-byte ones
// were no faster): each output row's segments start on a sector,
// the tile holds a sector's worth of rows more, and the segments are stored
// as 16-byte vectors (lane by lane only where a vector crosses the row's
// ends).
//
// Where the rows are whole 4-element vectors on both sides, no value is
// wider than 4 bytes and the tile holds 4-byte values (f32 for bf16 and
// f16 too), each thread instead loads four input rows of a 4 x 4 block and
// stores the block's columns as vectors into an unpadded tile whose
// 16-byte groups are XOR-swizzled by the row's block: both phases then
// move vectors through shared memory, conflict-free.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "IndexedEvaluator.h"
#include "ScalarOps.h"
#include "TransposeShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

constexpr int64_t kThreads = 256;
/// The epilogue's evaluator: the transposed value comes from the tile.
class TileEvaluator : public ViewEvaluator {
public:
  using ReadTile = function_ref<Lanes()>;
  TileEvaluator(ViewKernel &kernel, Memo &memo, ConversionCache &conversions,
                Value transposed, ReadTile readTile)
      : ViewEvaluator(kernel, memo, conversions), transposed(transposed),
        readTile(readTile) {}

protected:
  FailureOr<std::optional<Lanes>> provideFirst(Value value,
                                               const Index &) override {
    if (value != transposed)
      return std::optional<Lanes>();
    return std::optional<Lanes>(readTile());
  }
  std::unique_ptr<ViewEvaluator>
  makeBranch(Memo &memo, ConversionCache &conversions) override {
    return std::make_unique<TileEvaluator>(kernel, memo, conversions,
                                           transposed, readTile);
  }

private:
  Value transposed;
  ReadTile readTile;
};

class TransposeEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "transpose"; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    // Any other group with data movement is the view emitter's.
    return analyzeTranspose(ops, outputs, /*smCount=*/0)
               ? EmitterMatch::accept()
               : EmitterMatch::notMine();
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    std::optional<TransposeShape> shape =
        analyzeTransposeGroup(group, context.target);
    if (!shape)
      return group.emitError("internal error: not a transpose kernel");
    return context.options.launchFor(
        kThreads, shape->batch() * shape->tilesAcross() * shape->tilesInner());
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &) const override;
};

/// One transpose kernel as it is emitted: the block's tile of the input
/// (phase 1 loads it through the prologue into shared memory) and of the
/// output (phase 2 evaluates the epilogue from the tile, across).
class TransposeKernel {
public:
  TransposeKernel(GroupOp group, const TransposeShape &s,
                  const LaunchConfig &config, gpu::GPUFuncOp func, OpBuilder &b,
                  KernelBuilder &kb);

  /// Phase 1: the prologue at the input's index, into the tile.
  LogicalResult emitLoads();
  /// Phase 2: the epilogue at the output's index, from the tile across.
  LogicalResult emitStores();

private:
  /// Phase 1 of a blocked tile: each thread loads four rows of one 4 x 4
  /// block and stores its four columns as vectors.
  LogicalResult emitBlockLoads();
  /// The tile column of a blocked tile's 4-element group starting at
  /// (tile row `innerLocal`, `acrossLocal`): 16-byte groups XOR-swizzled by
  /// the row's block, so that neither phase's vectors share banks.
  Value blockColumn(Value innerLocal, Value acrossLocal);
  /// `body`'s lanes where `condition` holds, zeros elsewhere.
  FailureOr<GroupEvaluator::Lanes>
  loadIf(Value condition,
         function_ref<FailureOr<GroupEvaluator::Lanes>()> body);
  /// A slot of a phase: the tile element of its first lane (tileAcross,
  /// tileInner), its input index, and whether it lies in the tensor (null
  /// when unguarded and every slot is used). In phase 2 of a skewed tile,
  /// `lanesInside` says whether every lane lies in the output row (null where
  /// the tile is interior).
  struct Slot {
    Value tileAcross, tileInner, across, inner, valid;
    Value lanesInside;
  };

  Value add(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  }
  Value below(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 kb.constant(bound))
        .getResult();
  }
  Value index(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v)
        .getResult();
  }
  /// Whether the slot's input index lies in the tensor.
  Value inTensor(const Slot &slot) {
    return arith::AndIOp::create(b, loc,
                                 below(slot.across, input.getDimSize(s.across)),
                                 below(slot.inner, input.getDimSize(s.inner)));
  }
  /// Runs `body` under `condition`.
  LogicalResult guarded(Value condition, function_ref<LogicalResult()> body);
  /// Runs `phase(guard)` unguarded where every tile is whole, else in both
  /// branches of `interior`.
  LogicalResult split(function_ref<LogicalResult(bool)> phase);
  SmallVector<Slot> slotsOf(int64_t rows, int64_t vectorsPerRow,
                            bool transposed, bool guard);
  /// The output's index at `across` on the slot's output row.
  Index outputIndex(const Slot &slot, IndexDim across);
  /// Moves a phase-2 slot of a skewed tile onto its row's sector grid.
  void skewSlot(ViewKernel &out, Slot &slot, bool guard);
  FailureOr<GroupEvaluator::Lanes> readInput(ViewKernel &in, const Slot &slot);
  void toTile(const Slot &slot, ArrayRef<Value> lanes);
  /// Evaluates the epilogue at the slot and stores its lanes: as vectors,
  /// or lane by lane, each lane only where it lies in its output row.
  LogicalResult writeOutput(ViewKernel &out, const Slot &slot, bool byLane);
  LogicalResult writeSlot(ViewKernel &out, const Slot &slot);

  GroupOp group;
  const TransposeShape &s;
  gpu::GPUFuncOp func;
  OpBuilder &b;
  KernelBuilder &kb;
  Location loc;
  RankedTensorType input, output;
  const int64_t t;
  /// The tile's element type: the input's compute type.
  Type tileElement;
  /// acrossOrigin: the input's across index of the tile's row 0 (a sector
  /// before acrossBase where the tile is skewed).
  Value tile, thread, acrossBase, acrossOrigin, innerBase, interior;
  SmallVector<Value> batchIndex;
  bool wholeTiles = false;
};

TransposeKernel::TransposeKernel(GroupOp group, const TransposeShape &s,
                                 const LaunchConfig &config,
                                 gpu::GPUFuncOp func, OpBuilder &b,
                                 KernelBuilder &kb)
    : group(group), s(s), func(func), b(b), kb(kb), loc(group.getLoc()),
      input(s.input()), output(s.transpose.getType()), t(s.tile) {
  tileElement = getComputeType(input.getElementType());
  SmallVector<int64_t, 2> tileShape = {t + s.skew, t + 1};
  if (s.blocked)
    tileShape = {t, t};
  tile = func.addWorkgroupAttribution(
      MemRefType::get(tileShape, tileElement, AffineMap(),
                      gpu::AddressSpaceAttr::get(b.getContext(),
                                                 gpu::AddressSpace::Workgroup)),
      loc);
  if (s.blocked) {
    func.setWorkgroupAttributionAttr(0, LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
    // No register bound: held to 32 (eight blocks an SM, .minnctapersm 8)
    // the block's sixteen loaded words spill, and 5000 x 3000 f32 ran at
    // 84.0% of copy against 87.6% with ptxas's 41 registers (six blocks).
  }

  // The block's tile: (batch, tile inner, tile across), across fastest:
  // consecutive blocks write neighbouring segments of the output's rows.
  thread = kb.threadId();
  Value blockId = kb.logicalBlock(config);
  SmallVector<Value> coordinates =
      kb.decompose(blockId, {s.batch(), s.tilesInner(), s.tilesAcross()});
  SmallVector<int64_t> batchShape;
  for (int64_t d : s.batchDims)
    batchShape.push_back(input.getDimSize(d));
  if (!batchShape.empty())
    batchIndex = kb.decompose(coordinates[0], batchShape);
  acrossBase = arith::MulIOp::create(b, loc, coordinates[2], kb.constant(t));
  // Below zero on the first skewed tile: the index arithmetic wraps, and
  // the unsigned bound checks reject those rows.
  acrossOrigin =
      s.skew ? arith::SubIOp::create(b, loc, acrossBase, kb.constant(s.skew))
                   .getResult()
             : acrossBase;
  innerBase = arith::MulIOp::create(b, loc, coordinates[1], kb.constant(t));

  // A tile wholly inside the tensor needs no guards, and its slots' loads
  // are all issued before any is used; tiles on an edge guard each slot.
  // A skewed tile reaches a sector before its base, so the first one of
  // each row is never whole.
  wholeTiles = !s.skew && input.getDimSize(s.across) % t == 0 &&
               input.getDimSize(s.inner) % t == 0;
  if (!wholeTiles) {
    interior = arith::AndIOp::create(
        b, loc,
        below(add(acrossBase, kb.constant(t - 1)), input.getDimSize(s.across)),
        below(add(innerBase, kb.constant(t - 1)), input.getDimSize(s.inner)));
    if (s.skew)
      interior = arith::AndIOp::create(
          b, loc, interior,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                coordinates[2], kb.constant(0)));
  }
}

LogicalResult TransposeKernel::guarded(Value condition,
                                       function_ref<LogicalResult()> body) {
  auto guard = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  return body();
}

LogicalResult TransposeKernel::split(function_ref<LogicalResult(bool)> phase) {
  if (wholeTiles)
    return phase(false);
  auto branch = scf::IfOp::create(b, loc, interior, /*withElse=*/true);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  if (failed(phase(false)))
    return failure();
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  return phase(true);
}

SmallVector<TransposeKernel::Slot>
TransposeKernel::slotsOf(int64_t rows, int64_t vectorsPerRow, bool transposed,
                         bool guard) {
  SmallVector<Slot> slots;
  const int64_t count = rows * vectorsPerRow;
  for (int64_t first = 0; first < count; first += kThreads) {
    Slot slot;
    Value id = add(thread, kb.constant(first));
    Value row = arith::DivUIOp::create(b, loc, id, kb.constant(vectorsPerRow));
    Value column = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, id, kb.constant(vectorsPerRow)),
        kb.constant(t / vectorsPerRow));
    // Phase 1 walks rows across and columns inner; phase 2 the reverse.
    slot.tileAcross = transposed ? column : row;
    slot.tileInner = transposed ? row : column;
    slot.across = add(transposed ? acrossBase : acrossOrigin, slot.tileAcross);
    slot.inner = add(innerBase, slot.tileInner);
    // A skewed segment's lanes are checked against its row when stored
    // (skewSlot), not against the straight tile's columns.
    if (guard && transposed && s.skew)
      slot.valid = below(slot.inner, input.getDimSize(s.inner));
    else if (guard)
      slot.valid = inTensor(slot);
    if (first + kThreads > count) {
      Value used = below(id, count);
      slot.valid =
          slot.valid
              ? arith::AndIOp::create(b, loc, slot.valid, used).getResult()
              : used;
    }
    slots.push_back(slot);
  }
  return slots;
}

FailureOr<GroupEvaluator::Lanes> TransposeKernel::readInput(ViewKernel &in,
                                                            const Slot &slot) {
  Index at;
  at.shape.assign(input.getShape().begin(), input.getShape().end());
  at.dims.resize(input.getRank());
  for (auto [d, value] : llvm::zip(s.batchDims, batchIndex))
    at.dims[d] = {value, 0, 1, 0};
  at.dims[s.across] = {slot.across, 0, 1, 0};
  at.dims[s.inner] = {slot.inner, s.vecIn > 1 ? 1 : 0, s.vecIn, 0};
  GroupEvaluator::Memo memo;
  ConversionCache conversions;
  ViewEvaluator evaluator(in, memo, conversions);
  return evaluator.evaluateAt(s.transpose.getInput(), std::move(at));
}

void TransposeKernel::toTile(const Slot &slot, ArrayRef<Value> lanes) {
  for (auto [lane, value] : llvm::enumerate(lanes))
    memref::StoreOp::create(
        b, loc, value, tile,
        ValueRange{index(slot.tileAcross),
                   index(add(slot.tileInner, kb.constant(lane)))});
}

Value TransposeKernel::blockColumn(Value innerLocal, Value acrossLocal) {
  Value two = kb.constant(2);
  Value rowBlock = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, innerLocal, two), kb.constant(7));
  Value group = arith::XOrIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, acrossLocal, two), rowBlock);
  return arith::ShLIOp::create(b, loc, group, two);
}

FailureOr<GroupEvaluator::Lanes>
TransposeKernel::loadIf(Value condition,
                        function_ref<FailureOr<GroupEvaluator::Lanes>()> body) {
  SmallVector<Type> types(4, tileElement);
  auto branch = scf::IfOp::create(b, loc, types, condition, /*withElse=*/true);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(branch.thenBlock());
  FailureOr<GroupEvaluator::Lanes> lanes = body();
  if (failed(lanes))
    return failure();
  scf::YieldOp::create(b, loc, *lanes);
  b.setInsertionPointToStart(branch.elseBlock());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(tileElement));
  scf::YieldOp::create(b, loc, SmallVector<Value>(4, zero));
  return GroupEvaluator::Lanes(branch.getResults().begin(),
                               branch.getResults().end());
}

LogicalResult TransposeKernel::emitBlockLoads() {
  ViewKernel in(group, b, kb, func, /*vec=*/4);
  const int64_t blocksPerRow = t / 4;
  return split([&](bool guard) -> LogicalResult {
    for (int64_t first = 0; first < blocksPerRow * blocksPerRow;
         first += kThreads) {
      Value id = add(thread, kb.constant(first));
      Value four = kb.constant(4);
      Value acrossLocal = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, id, kb.constant(blocksPerRow)),
          four);
      Value innerLocal = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, id, kb.constant(blocksPerRow)),
          four);
      // The block's four input rows, all loaded before any is stored.
      SmallVector<GroupEvaluator::Lanes> rows;
      for (int64_t k = 0; k < 4; ++k) {
        Slot slot;
        slot.across = add(acrossOrigin, add(acrossLocal, kb.constant(k)));
        slot.inner = add(innerBase, innerLocal);
        FailureOr<GroupEvaluator::Lanes> lanes =
            guard ? loadIf(inTensor(slot), [&] { return readInput(in, slot); })
                  : readInput(in, slot);
        if (failed(lanes))
          return failure();
        rows.push_back(std::move(*lanes));
      }
      // Column m of the block is the tile's row innerLocal + m.
      auto vectorType = VectorType::get({4}, tileElement);
      for (int64_t m = 0; m < 4; ++m) {
        Value column = vector::FromElementsOp::create(
            b, loc, vectorType,
            ValueRange{rows[0][m], rows[1][m], rows[2][m], rows[3][m]});
        Value row = add(innerLocal, kb.constant(m));
        vector::StoreOp::create(
            b, loc, column, tile,
            ValueRange{index(row), index(blockColumn(row, acrossLocal))},
            /*nontemporal=*/false, llvm::MaybeAlign(16));
      }
    }
    return success();
  });
}

LogicalResult TransposeKernel::emitLoads() {
  if (s.blocked)
    return emitBlockLoads();
  ViewKernel in(group, b, kb, func, s.vecIn);
  return split([&](bool guard) -> LogicalResult {
    SmallVector<Slot> slots = slotsOf(t + s.skew, t / s.vecIn, false, guard);
    SmallVector<std::pair<Slot, GroupEvaluator::Lanes>> loaded;
    for (const Slot &slot : slots) {
      if (slot.valid) {
        if (failed(guarded(slot.valid, [&]() -> LogicalResult {
              FailureOr<GroupEvaluator::Lanes> lanes = readInput(in, slot);
              if (failed(lanes))
                return failure();
              toTile(slot, *lanes);
              return success();
            })))
          return failure();
        continue;
      }
      FailureOr<GroupEvaluator::Lanes> lanes = readInput(in, slot);
      if (failed(lanes))
        return failure();
      loaded.push_back({slot, std::move(*lanes)});
    }
    for (auto &[slot, lanes] : loaded)
      toTile(slot, lanes);
    return success();
  });
}

Index TransposeKernel::outputIndex(const Slot &slot, IndexDim across) {
  // Output dimension i is input dimension perm[i].
  Index at;
  at.shape.assign(output.getShape().begin(), output.getShape().end());
  for (int64_t p : s.transpose.getPermutation()) {
    if (p == s.across)
      at.dims.push_back(across);
    else if (p == s.inner)
      at.dims.push_back({slot.inner, 0, 1, 0});
    else
      at.dims.push_back(
          {batchIndex[llvm::find(s.batchDims, p) - s.batchDims.begin()], 0, 1,
           0});
  }
  return at;
}

void TransposeKernel::skewSlot(ViewKernel &out, Slot &slot, bool guard) {
  // The row's segments start `lag` elements before their tiles' bases, on
  // the sector its element at the base falls in (tiles are whole sectors
  // wide, so the lag is the row's). The tile holds the segment `lag` rows
  // into the skew's margin.
  Value rowStart = out.linearize(outputIndex(slot, out.constantDim(0))).value;
  Value lag = arith::RemUIOp::create(b, loc, rowStart, kb.constant(s.skew));
  Value shift = arith::SubIOp::create(b, loc, kb.constant(s.skew), lag);
  slot.tileAcross = add(slot.tileAcross, shift);
  slot.across = add(acrossOrigin, slot.tileAcross);
  if (!guard)
    return;
  const int64_t extent = input.getDimSize(s.across);
  slot.lanesInside = arith::AndIOp::create(
      b, loc, below(slot.across, extent),
      below(add(slot.across, kb.constant(s.vecOut - 1)), extent));
}

LogicalResult TransposeKernel::writeOutput(ViewKernel &out, const Slot &slot,
                                           bool byLane) {
  Index at = outputIndex(
      slot, s.skew ? IndexDim{slot.across, s.vecOut > 1 ? 1 : 0, 1, 0}
                   : IndexDim{slot.across, s.vecOut > 1 ? 1 : 0, s.vecOut, 0});
  auto readTile = [&]() {
    GroupEvaluator::Lanes lanes;
    if (s.blocked) {
      Value vector = vector::LoadOp::create(
          b, loc, VectorType::get({4}, tileElement), tile,
          ValueRange{index(slot.tileInner),
                     index(blockColumn(slot.tileInner, slot.tileAcross))},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
      for (int64_t lane = 0; lane < 4; ++lane)
        lanes.push_back(vector::ExtractOp::create(b, loc, vector, lane));
      return lanes;
    }
    for (int64_t lane = 0; lane < s.vecOut; ++lane)
      lanes.push_back(memref::LoadOp::create(
          b, loc, tile,
          ValueRange{index(add(slot.tileAcross, kb.constant(lane))),
                     index(slot.tileInner)}));
    return lanes;
  };
  GroupEvaluator::Memo memo;
  ConversionCache conversions;
  TileEvaluator evaluator(out, memo, conversions, s.transpose, readTile);
  IndexDim offset = out.linearize(at);
  const int context = out.intern(std::move(at));
  auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
  const unsigned numInputs = group.getNumOperands();
  for (auto [position, value] : llvm::enumerate(yield.getOperands())) {
    FailureOr<GroupEvaluator::Lanes> lanes = evaluator.evaluate(value, context);
    if (failed(lanes))
      return failure();
    Value pointer = func.getArgument(numInputs + position);
    Type element = cast<RankedTensorType>(value.getType()).getElementType();
    if (!byLane) {
      kb.store(pointer, element, offset.value, *lanes);
      continue;
    }
    for (auto [lane, laneValue] : llvm::enumerate(*lanes)) {
      Value inside = below(add(slot.across, kb.constant(lane)),
                           input.getDimSize(s.across));
      if (failed(guarded(inside, [&]() -> LogicalResult {
            kb.store(pointer, element, add(offset.value, kb.constant(lane)),
                     {laneValue});
            return success();
          })))
        return failure();
    }
  }
  return success();
}

LogicalResult TransposeKernel::writeSlot(ViewKernel &out, const Slot &slot) {
  if (!slot.lanesInside)
    return writeOutput(out, slot, /*byLane=*/false);
  // A vector wholly in its row is stored whole; one crossing the row's
  // start or end lane by lane.
  auto branch = scf::IfOp::create(b, loc, slot.lanesInside, /*withElse=*/true);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  if (failed(writeOutput(out, slot, /*byLane=*/false)))
    return failure();
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  return writeOutput(out, slot, /*byLane=*/true);
}

LogicalResult TransposeKernel::emitStores() {
  ViewKernel out(group, b, kb, func, s.vecOut);
  return split([&](bool guard) -> LogicalResult {
    for (Slot slot : slotsOf(t, t / s.vecOut, true, guard)) {
      if (s.skew)
        skewSlot(out, slot, guard);
      if (failed(slot.valid
                     ? guarded(slot.valid, [&] { return writeSlot(out, slot); })
                     : writeSlot(out, slot)))
        return failure();
    }
    return success();
  });
}

LogicalResult TransposeEmitter::emit(GroupOp group, const LaunchConfig &config,
                                     gpu::GPUModuleOp module, StringRef name,
                                     const EmitContext &context) const {
  std::optional<TransposeShape> analyzed =
      analyzeTransposeGroup(group, context.target);
  if (!analyzed)
    return group.emitError("internal error: not a transpose kernel");
  int64_t largest = getNumElements(analyzed->transpose.getType());
  for (Type type : group.getInputs().getTypes())
    largest = std::max(largest, getNumElements(type));
  Type indexType = indexTypeFor(group.getContext(), largest);
  OpBuilder b(group.getContext());
  gpu::GPUFuncOp func = createKernel(b, group, module, name, config.block);
  b.setInsertionPoint(func.getBody().front().getTerminator());
  KernelBuilder kb(b, group.getLoc(), indexType);
  kb.setStrictNumerics(context.options.strictNumerics());
  TransposeKernel kernel(group, *analyzed, config, func, b, kb);
  if (failed(kernel.emitLoads()))
    return failure();
  gpu::BarrierOp::create(b, group.getLoc());
  return kernel.emitStores();
}

} // namespace

std::unique_ptr<KernelEmitter> createTransposeEmitter() {
  return std::make_unique<TransposeEmitter>();
}

} // namespace opfuse
