//===- RowEmitter.cpp - Row-reduction kernels from fuse.group -------------===//
//
// Each row of the iteration space belongs to a power-of-two segment of
// threads: part of a warp for short rows, a warp, or a whole block for long
// ones. A thread owns vectors of its row a segment apart (coalesced), keeps
// them in registers, folds the reductions over them (those that do not
// depend on one another together), combines the segment with warp shuffles
// (and shared memory across warps), and then computes and stores the
// epilogue from the same registers: the row is read from device memory
// once. Rows too long for registers are streamed: each level of reductions,
// and the epilogue, makes one pass over the row. A lone reduction over
// leading dimensions maps the other way round (see RowLayout::strided),
// with the same prologues and epilogues.
// Values are evaluated on demand per vector and memoised, so every op of
// the group runs once per element however many reductions and outputs use
// it.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "GroupEvaluator.h"
#include "KernelBuilder.h"
#include "ScalarOps.h"

#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxThreadsPerRow = 1024;

/// How rows map onto threads.
struct RowLayout {
  int64_t rows = 0, rowLength = 0;
  int64_t vec = 1;           // elements per vector
  int64_t vectorsPerRow = 0; // rowLength / vec
  int64_t threadsPerRow = 1; // a power of two
  int64_t rowsPerBlock = 1;
  int64_t positions = 1;  // vectors a thread holds (registers)
  bool streaming = false; // one pass over the row per reduction level
  int64_t unroll = 1;     // streaming: positions per loop iteration
  // Rows over leading (or scattered) dimensions: neighbouring lanes take
  // neighbouring rows (neighbouring addresses when the kept dimensions are
  // the inner ones), and the row's threads, rowsPerBlock lanes apart, each
  // walk a slice of the reduced elements.
  bool strided = false;
};

int64_t powerOfTwoAtLeast(int64_t value) {
  return static_cast<int64_t>(
      llvm::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(value, 1))));
}

enum class Combine { Sum, Max };

Combine combineOf(Operation *reduction) {
  return isa<ReduceMaxOp>(reduction) ? Combine::Max : Combine::Sum;
}

/// One vector of a row: where it is and what has been computed for it.
struct Position {
  Value valid;        // null when always inside the row
  Value elementIndex; // linear index of its first element in the input
  GroupEvaluator::Memo values;
  DenseMap<int, SmallVector<Value>> contextIndices;
};

class RowKernelEmitter {
  friend class PositionEvaluator;
  friend class RowScalarEvaluator;

public:
  RowKernelEmitter(GroupOp group, RowKernelInfo info, RowLayout layout,
                   OpBuilder &b, Location loc, Type indexType,
                   const LaunchConfig &launch, bool strictNumerics)
      : group(group), body(group.getBody().front()), info(std::move(info)),
        layout(layout), b(b), loc(loc), kb(b, loc, indexType), launch(launch) {
    kb.setStrictNumerics(strictNumerics);
  }

  LogicalResult emit(gpu::GPUFuncOp func);

private:
  // Threads and rows.
  void emitRowIndices();
  Position makePosition(Value vectorIndex, bool mayBeOutside);
  /// Strided mode: the input offset of element `index` of the kept
  /// dimensions (the row) or of the reduced ones (the column), each
  /// enumerated in row-major order.
  Value stridedOffset(Value index, bool reduced);

  // Values.
  FailureOr<SmallVector<Value>> evaluate(Value value, Position &position,
                                         int context);
  FailureOr<Value> rowScalar(Value value);
  FailureOr<SmallVector<Value>> loadBroadcast(BlockArgument argument,
                                              Position &position, int context);
  int intern(ArrayRef<int64_t> shape);

  // Reductions.
  /// Folds `reductions` (none depends on another) in one pass over the row
  /// and combines them across threads with one barrier.
  LogicalResult emitReductions(ArrayRef<Operation *> reductions);
  /// The level of the deepest reduction `value` depends on inside the
  /// group, its own when it is a reduction's result (-1: none). A reduction
  /// is one level above the deepest one its input depends on.
  int levelOf(Value value);
  /// Computes every per-row value that depends on reductions up to `level`.
  LogicalResult emitRowValuesUpTo(int level);
  Value identity(Combine combine, Type type);
  Value combine(Combine kind, Value lhs, Value rhs);
  Value combineAll(Combine kind, SmallVector<Value> values);
  Value shuffleXor(Value value, int64_t offset);
  /// Combines each partial across its row's threads: xor shuffles within a
  /// warp, then one shared-memory slot per warp; one barrier for all.
  SmallVector<Value> combineAcrossThreads(ArrayRef<Combine> kinds,
                                          ArrayRef<Value> partials);
  /// Strided mode: a row's threads are one lane in each warp; every thread
  /// leaves its partial in shared memory and reads its row's column.
  SmallVector<Value> combineAcrossWarps(ArrayRef<Combine> kinds,
                                        ArrayRef<Value> partials);

  // Outputs.
  LogicalResult storeElementOutputs(Position &position);
  LogicalResult emitOutputs();

  /// Runs `fn` once per vector of this thread's row: unrolled over the
  /// register positions, or in an scf.for whose iterations each build a
  /// fresh position (streaming). `carried` values are threaded through the
  /// loop; `fn` returns their new values.
  FailureOr<SmallVector<Value>> forEachPosition(
      ValueRange carried,
      function_ref<FailureOr<SmallVector<Value>>(Position &, ValueRange)> fn);

  Value guard(Value a, Value c) {
    if (!a)
      return c;
    if (!c)
      return a;
    return arith::AndIOp::create(b, loc, a, c);
  }

  GroupOp group;
  Block &body;
  RowKernelInfo info;
  RowLayout layout;
  OpBuilder &b;
  Location loc;
  KernelBuilder kb;
  /// The grid and the blocks of rows it walks (more: a grid-stride loop).
  LaunchConfig launch;
  gpu::GPUFuncOp func;

  Value thread, laneInRow, rowInBlock, row, rowValid;
  Value stridedRowOffset; // strided mode: the row's first input element
  SmallVector<SmallVector<int64_t>> contexts;
  /// Per-row values (reductions' results and what is computed from them),
  /// one lane each, context 0.
  GroupEvaluator::Memo rowScalars;
  DenseMap<Value, int> levels;
  SmallVector<Position> registers;
};

int RowKernelEmitter::intern(ArrayRef<int64_t> shape) {
  for (auto [id, known] : llvm::enumerate(contexts))
    if (ArrayRef<int64_t>(known) == shape)
      return id;
  contexts.emplace_back(shape.begin(), shape.end());
  return contexts.size() - 1;
}

void RowKernelEmitter::emitRowIndices() {
  thread = kb.threadId();
  Value block = kb.logicalBlock(launch);
  const int64_t segment = layout.threadsPerRow;
  if (layout.strided) {
    rowInBlock = arith::RemUIOp::create(b, loc, thread,
                                        kb.constant(layout.rowsPerBlock));
    laneInRow = arith::DivUIOp::create(b, loc, thread,
                                       kb.constant(layout.rowsPerBlock));
  } else {
    laneInRow = segment == 1 ? kb.constant(0)
                             : arith::RemUIOp::create(b, loc, thread,
                                                      kb.constant(segment));
    rowInBlock = segment == 1 ? thread
                              : arith::DivUIOp::create(b, loc, thread,
                                                       kb.constant(segment));
  }
  row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block, kb.constant(layout.rowsPerBlock)),
      rowInBlock);
  // Threads past the last row compute the last row again and store nothing:
  // every thread must reach the shuffles and barriers.
  if (layout.rows % layout.rowsPerBlock != 0) {
    rowValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                     kb.constant(layout.rows));
    row = arith::MinUIOp::create(b, loc, row, kb.constant(layout.rows - 1));
  }
  if (layout.strided)
    stridedRowOffset = stridedOffset(row, /*reduced=*/false);
}

Value RowKernelEmitter::stridedOffset(Value index, bool reduced) {
  ArrayRef<int64_t> input = info.shape.inputShape, axes = info.shape.axes;
  SmallVector<int64_t> strides = rowMajorStrides(input);
  SmallVector<int64_t> shape, selectedStrides;
  for (int64_t d = 0, rank = input.size(); d < rank; ++d)
    if (llvm::is_contained(axes, d) == reduced) {
      shape.push_back(input[d]);
      selectedStrides.push_back(strides[d]);
    }
  Value offset = kb.constant(0);
  for (auto [i, stride] :
       llvm::zip(kb.decompose(index, shape), selectedStrides))
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, i, kb.constant(stride)));
  return offset;
}

Position RowKernelEmitter::makePosition(Value vectorIndex, bool mayBeOutside) {
  Position position;
  if (mayBeOutside) {
    position.valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, vectorIndex,
                              kb.constant(layout.vectorsPerRow));
    // Read a vector inside the row instead; the result is masked.
    vectorIndex = arith::MinUIOp::create(b, loc, vectorIndex,
                                         kb.constant(layout.vectorsPerRow - 1));
  }
  Value column =
      layout.vec == 1
          ? vectorIndex
          : arith::MulIOp::create(b, loc, vectorIndex, kb.constant(layout.vec));
  if (!layout.strided) {
    position.elementIndex = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, row, kb.constant(layout.rowLength)),
        column);
    return position;
  }
  position.elementIndex = arith::AddIOp::create(
      b, loc, stridedRowOffset, stridedOffset(column, /*reduced=*/true));
  return position;
}

FailureOr<SmallVector<Value>>
RowKernelEmitter::loadBroadcast(BlockArgument argument, Position &position,
                                int context) {
  auto type = cast<RankedTensorType>(argument.getType());
  FailureOr<InputAccess> access =
      analyzeInput(group, type, contexts[context], argument.getArgNumber());
  if (failed(access))
    return failure();
  Value pointer = func.getArgument(argument.getArgNumber());
  Value offset;
  if (access->isScalar) {
    offset = kb.constant(0);
  } else {
    SmallVector<Value> &indices = position.contextIndices[context];
    if (indices.empty())
      indices = kb.decompose(position.elementIndex, contexts[context]);
    offset = kb.broadcastOffset(*access, indices);
  }
  if (access->innerContiguous && layout.vec > 1)
    return kb.load(pointer, type.getElementType(), offset, layout.vec);
  Value one = kb.load(pointer, type.getElementType(), offset, 1).front();
  return SmallVector<Value>(layout.vec, one);
}

/// One vector position of a row: per-element values load at the
/// position, smaller ones by broadcast in their context, per-row ones are
/// the row's scalars in every lane.
class PositionEvaluator : public GroupEvaluator {
public:
  PositionEvaluator(RowKernelEmitter &emitter, Position &position)
      : GroupEvaluator(emitter.b, emitter.layout.vec, position.values,
                       emitter.kb.strictNumerics()),
        emitter(emitter), position(position) {}

protected:
  FailureOr<std::optional<Lanes>> provide(Value value, int context) override {
    RowValueKind kind = emitter.info.kinds.lookup(value);
    if (kind == RowValueKind::Scalar || kind == RowValueKind::Row) {
      FailureOr<Value> scalar = emitter.rowScalar(value);
      if (failed(scalar))
        return failure();
      return std::optional<Lanes>(Lanes(width, *scalar));
    }
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument)
      return std::optional<Lanes>();
    if (kind == RowValueKind::Element)
      return std::optional<Lanes>(emitter.kb.load(
          emitter.func.getArgument(argument.getArgNumber()),
          cast<RankedTensorType>(value.getType()).getElementType(),
          position.elementIndex, width));
    FailureOr<Lanes> loaded =
        emitter.loadBroadcast(argument, position, context);
    if (failed(loaded))
      return failure();
    return std::optional<Lanes>(std::move(*loaded));
  }
  int keyContext(Value value, int context) override {
    return emitter.info.kinds.lookup(value) == RowValueKind::Element ? -1
                                                                     : context;
  }
  // An element-sized op broadcasts its smaller operands in its own shape;
  // a smaller op is evaluated in the context of the value it feeds.
  int operandContext(Operation *op, int context) override {
    Value result = op->getResult(0);
    if (emitter.info.kinds.lookup(result) != RowValueKind::Element)
      return context;
    return emitter.intern(cast<RankedTensorType>(result.getType()).getShape());
  }

private:
  RowKernelEmitter &emitter;
  Position &position;
};

/// Per-row values, once per thread: inputs of one element per row (or
/// one for the kernel) load at the row, reductions are what
/// emitReductions left.
class RowScalarEvaluator : public GroupEvaluator {
public:
  explicit RowScalarEvaluator(RowKernelEmitter &emitter)
      : GroupEvaluator(emitter.b, /*width=*/1, emitter.rowScalars,
                       emitter.kb.strictNumerics()),
        emitter(emitter) {}

protected:
  FailureOr<std::optional<Lanes>> provide(Value value, int) override {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      KernelBuilder &kb = emitter.kb;
      Value index =
          getNumElements(value.getType()) == 1 ? kb.constant(0) : emitter.row;
      return std::optional<Lanes>(kb.load(
          emitter.func.getArgument(argument.getArgNumber()),
          cast<RankedTensorType>(value.getType()).getElementType(), index, 1));
    }
    Operation *op = value.getDefiningOp();
    if (isReduction(op))
      return op->emitError("internal error: reduction used before it is "
                           "emitted");
    return std::optional<Lanes>();
  }
  int keyContext(Value, int) override { return 0; }

private:
  RowKernelEmitter &emitter;
};

FailureOr<SmallVector<Value>>
RowKernelEmitter::evaluate(Value value, Position &position, int context) {
  PositionEvaluator evaluator(*this, position);
  return evaluator.evaluate(value, context);
}

FailureOr<Value> RowKernelEmitter::rowScalar(Value value) {
  RowScalarEvaluator evaluator(*this);
  FailureOr<GroupEvaluator::Lanes> lanes = evaluator.evaluate(value, 0);
  if (failed(lanes))
    return failure();
  return lanes->front();
}

Value RowKernelEmitter::identity(Combine kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(type,
                       kind == Combine::Sum
                           ? APFloat::getZero(floatType.getFloatSemantics())
                           : APFloat::getInf(floatType.getFloatSemantics(),
                                             /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, kind == Combine::Sum
                                 ? APInt::getZero(width)
                                 : APInt::getSignedMinValue(width)));
}

Value RowKernelEmitter::combine(Combine kind, Value lhs, Value rhs) {
  const bool isFloat = isa<FloatType>(lhs.getType());
  if (kind == Combine::Sum)
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  return isFloat ? Value(arith::MaximumFOp::create(b, loc, lhs, rhs))
                 : Value(arith::MaxSIOp::create(b, loc, lhs, rhs));
}

/// Pairwise: shorter dependency chains, and a sum's rounding error grows
/// with the log of the count instead of the count.
Value RowKernelEmitter::combineAll(Combine kind, SmallVector<Value> values) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(kind, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

Value RowKernelEmitter::shuffleXor(Value value, int64_t offset) {
  Type type = value.getType();
  if (type.getIntOrFloatBitWidth() == 32)
    return gpu::ShuffleOp::create(b, loc, value, offset, kWarpSize,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  // 64-bit integers travel as two 32-bit halves.
  Type i32 = b.getI32Type();
  Value low = arith::TruncIOp::create(b, loc, i32, value);
  Value high = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(
          b, loc, value,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 32))));
  auto shuffle = [&](Value half) {
    return gpu::ShuffleOp::create(b, loc, half, offset, kWarpSize,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Value newLow = arith::ExtUIOp::create(b, loc, type, shuffle(low));
  Value newHigh = arith::ShLIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, type, shuffle(high)),
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 32)));
  return arith::OrIOp::create(b, loc, newLow, newHigh);
}

SmallVector<Value>
RowKernelEmitter::combineAcrossThreads(ArrayRef<Combine> kinds,
                                       ArrayRef<Value> partials) {
  if (layout.strided)
    return combineAcrossWarps(kinds, partials);
  const int64_t segment = layout.threadsPerRow;
  SmallVector<Value> values(partials.begin(), partials.end());
  // Within a warp: segments are aligned, so xor offsets below the segment
  // size stay inside it.
  for (auto [kind, value] : llvm::zip(kinds, values))
    for (int64_t offset = std::min(segment, kWarpSize) / 2; offset >= 1;
         offset /= 2)
      value = combine(kind, value, shuffleXor(value, offset));
  if (segment <= kWarpSize)
    return values;

  // Across the warps of a row: one slot per warp in shared memory, a fresh
  // array per reduction, so one barrier suffices for all of them.
  const int64_t warps = segment / kWarpSize;
  Type index = b.getIndexType();
  Value warpInRow =
      arith::DivUIOp::create(b, loc, laneInRow, kb.constant(kWarpSize));
  Value laneInWarp =
      arith::RemUIOp::create(b, loc, laneInRow, kb.constant(kWarpSize));
  Value base = arith::MulIOp::create(b, loc, rowInBlock, kb.constant(warps));
  SmallVector<Value> slotArrays;
  for (Value value : values)
    slotArrays.push_back(func.addWorkgroupAttribution(
        MemRefType::get({layout.rowsPerBlock * warps}, value.getType(),
                        AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)),
        loc));
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneInWarp, kb.constant(0));
  auto store = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    Value slot = arith::IndexCastUIOp::create(
        b, loc, index, arith::AddIOp::create(b, loc, base, warpInRow));
    for (auto [value, slots] : llvm::zip(values, slotArrays))
      memref::StoreOp::create(b, loc, value, slots, ValueRange{slot});
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> totals;
  for (auto [kind, slots] : llvm::zip(kinds, slotArrays)) {
    SmallVector<Value> perWarp;
    for (int64_t w = 0; w < warps; ++w) {
      Value slot = arith::IndexCastUIOp::create(
          b, loc, index, arith::AddIOp::create(b, loc, base, kb.constant(w)));
      perWarp.push_back(
          memref::LoadOp::create(b, loc, slots, ValueRange{slot}));
    }
    totals.push_back(combineAll(kind, perWarp));
  }
  return totals;
}

SmallVector<Value>
RowKernelEmitter::combineAcrossWarps(ArrayRef<Combine> kinds,
                                     ArrayRef<Value> partials) {
  if (layout.threadsPerRow == 1)
    return SmallVector<Value>(partials.begin(), partials.end());
  const int64_t rowsPerBlock = layout.rowsPerBlock;
  // A warp holds rowsPerBlock rows (lanes apart by 1) times lanesPerWarp
  // threads of each (lanes apart by rowsPerBlock): xor shuffles by
  // multiples of rowsPerBlock combine a row within the warp.
  const int64_t lanesPerWarp = std::max<int64_t>(1, kWarpSize / rowsPerBlock);
  SmallVector<Value> values(partials.begin(), partials.end());
  for (auto [kind, value] : llvm::zip(kinds, values))
    for (int64_t offset = kWarpSize / 2; offset >= rowsPerBlock; offset /= 2)
      value = combine(kind, value, shuffleXor(value, offset));
  const int64_t warps = layout.threadsPerRow / lanesPerWarp;
  if (warps <= 1)
    return values;

  // Across warps: one shared-memory slot per warp and row.
  Type index = b.getIndexType();
  auto slotOf = [&](Value warp) {
    return arith::IndexCastUIOp::create(
        b, loc, index,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, warp, kb.constant(rowsPerBlock)),
            rowInBlock));
  };
  Value warp = lanesPerWarp == 1
                   ? laneInRow
                   : Value(arith::DivUIOp::create(b, loc, laneInRow,
                                                  kb.constant(lanesPerWarp)));
  SmallVector<Value> slotArrays;
  for (Value value : values)
    slotArrays.push_back(func.addWorkgroupAttribution(
        MemRefType::get({rowsPerBlock * warps}, value.getType(), AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)),
        loc));
  {
    OpBuilder::InsertionGuard insertion(b);
    if (lanesPerWarp > 1) {
      Value first = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, laneInRow, kb.constant(lanesPerWarp)),
          kb.constant(0));
      auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    Value mySlot = slotOf(warp);
    for (auto [value, slots] : llvm::zip(values, slotArrays))
      memref::StoreOp::create(b, loc, value, slots, ValueRange{mySlot});
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> totals;
  for (auto [kind, slots] : llvm::zip(kinds, slotArrays)) {
    SmallVector<Value> perWarp;
    for (int64_t w = 0; w < warps; ++w)
      perWarp.push_back(memref::LoadOp::create(
          b, loc, slots, ValueRange{slotOf(kb.constant(w))}));
    totals.push_back(combineAll(kind, perWarp));
  }
  return totals;
}

FailureOr<SmallVector<Value>> RowKernelEmitter::forEachPosition(
    ValueRange carried,
    function_ref<FailureOr<SmallVector<Value>>(Position &, ValueRange)> fn) {
  if (!layout.streaming) {
    SmallVector<Value> state(carried.begin(), carried.end());
    for (Position &position : registers) {
      FailureOr<SmallVector<Value>> next = fn(position, state);
      if (failed(next))
        return failure();
      state = std::move(*next);
    }
    return state;
  }
  // Each iteration takes `unroll` positions, whose loads are independent
  // and so in flight together: strided rows read one element per position.
  const int64_t unroll = layout.unroll;
  const int64_t stride = layout.threadsPerRow * unroll;
  const int64_t steps = (layout.vectorsPerRow + stride - 1) / stride;
  auto loop = scf::ForOp::create(b, loc, kb.constant(0), kb.constant(steps),
                                 kb.constant(1), carried);
  OpBuilder::InsertionGuard insertion(b);
  // Without carried values the builder has added the yield already.
  if (!loop.getBody()->empty())
    loop.getBody()->getTerminator()->erase();
  b.setInsertionPointToStart(loop.getBody());
  Value first = arith::AddIOp::create(
      b, loc, laneInRow,
      arith::MulIOp::create(b, loc, loop.getInductionVar(),
                            kb.constant(stride)));
  SmallVector<Value> state(loop.getRegionIterArgs().begin(),
                           loop.getRegionIterArgs().end());
  for (int64_t u = 0; u < unroll; ++u) {
    Value vectorIndex =
        u == 0 ? first
               : Value(arith::AddIOp::create(
                     b, loc, first, kb.constant(u * layout.threadsPerRow)));
    Position position =
        makePosition(vectorIndex, layout.vectorsPerRow % stride != 0 &&
                                      (u + 1) * layout.threadsPerRow >
                                          layout.vectorsPerRow % stride);
    FailureOr<SmallVector<Value>> next = fn(position, state);
    if (failed(next))
      return failure();
    state = std::move(*next);
  }
  scf::YieldOp::create(b, loc, state);
  return SmallVector<Value>(loop.getResults().begin(), loop.getResults().end());
}

LogicalResult
RowKernelEmitter::emitReductions(ArrayRef<Operation *> reductions) {
  SmallVector<Combine> kinds;
  SmallVector<Type> types;
  SmallVector<Value> starts;
  for (Operation *reduction : reductions) {
    kinds.push_back(combineOf(reduction));
    types.push_back(getComputeType(
        cast<RankedTensorType>(reduction->getOperand(0).getType())
            .getElementType()));
    starts.push_back(identity(kinds.back(), types.back()));
  }
  FailureOr<SmallVector<Value>> folded = forEachPosition(
      starts,
      [&](Position &position,
          ValueRange state) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> next;
        for (auto [i, reduction] : llvm::enumerate(reductions)) {
          FailureOr<SmallVector<Value>> lanes =
              evaluate(reduction->getOperand(0), position, -1);
          if (failed(lanes))
            return failure();
          Value partial = combineAll(kinds[i], *lanes);
          if (position.valid)
            partial = arith::SelectOp::create(b, loc, position.valid, partial,
                                              identity(kinds[i], types[i]));
          next.push_back(combine(kinds[i], state[i], partial));
        }
        return next;
      });
  if (failed(folded))
    return failure();
  SmallVector<Value> totals = combineAcrossThreads(kinds, *folded);
  for (auto [i, reduction] : llvm::enumerate(reductions)) {
    Value total = totals[i];
    if (isa<ReduceMeanOp>(reduction))
      total = arith::DivFOp::create(
          b, loc, total,
          arith::ConstantOp::create(
              b, loc,
              b.getFloatAttr(types[i], static_cast<double>(layout.rowLength))));
    // Seeded, not stored: strict numerics rounds a bf16 or f16 result
    // before anything reads it.
    RowScalarEvaluator(*this).seed(reduction->getResult(0), 0, {total});
  }
  return success();
}

int RowKernelEmitter::levelOf(Value value) {
  auto it = levels.find(value);
  if (it != levels.end())
    return it->second;
  int level = -1;
  if (Operation *op = value.getDefiningOp()) {
    for (Value operand : op->getOperands())
      level = std::max(level, levelOf(operand));
    if (isReduction(op))
      ++level;
  }
  levels[value] = level;
  return level;
}

LogicalResult RowKernelEmitter::emitRowValuesUpTo(int level) {
  for (Operation &op : body.without_terminator()) {
    if (isReduction(&op))
      continue;
    Value result = op.getResult(0);
    RowValueKind kind = info.kinds.lookup(result);
    if ((kind == RowValueKind::Row || kind == RowValueKind::Scalar) &&
        levelOf(result) <= level && failed(rowScalar(result)))
      return failure();
  }
  return success();
}

LogicalResult RowKernelEmitter::storeElementOutputs(Position &position) {
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  SmallVector<std::pair<unsigned, SmallVector<Value>>> stores;
  for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
    if (info.kinds.lookup(value) != RowValueKind::Element)
      continue;
    FailureOr<SmallVector<Value>> lanes = evaluate(value, position, -1);
    if (failed(lanes))
      return failure();
    stores.push_back({static_cast<unsigned>(index), std::move(*lanes)});
  }
  if (stores.empty())
    return success();
  // Compute first, then store under the guard: values stay usable by the
  // positions and passes that follow.
  OpBuilder::InsertionGuard insertion(b);
  if (Value inRange = guard(position.valid, rowValid)) {
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  for (auto &[index, lanes] : stores)
    kb.store(
        func.getArgument(numInputs + index),
        cast<RankedTensorType>(group.getResultTypes()[index]).getElementType(),
        position.elementIndex, lanes);
  return success();
}

LogicalResult RowKernelEmitter::emitOutputs() {
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  // One value per row: the row's first thread stores it.
  SmallVector<std::pair<unsigned, Value>> perRow;
  for (auto [index, value] : llvm::enumerate(yield.getOperands()))
    if (info.kinds.lookup(value) == RowValueKind::Row) {
      FailureOr<Value> scalar = rowScalar(value);
      if (failed(scalar))
        return failure();
      perRow.push_back({static_cast<unsigned>(index), *scalar});
    }
  if (!perRow.empty()) {
    OpBuilder::InsertionGuard insertion(b);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneInRow, kb.constant(0));
    auto ifOp = scf::IfOp::create(b, loc, guard(first, rowValid),
                                  /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    for (auto [index, scalar] : perRow)
      kb.store(func.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               row, {scalar});
  }
  FailureOr<SmallVector<Value>> done = forEachPosition(
      ValueRange{},
      [&](Position &position, ValueRange) -> FailureOr<SmallVector<Value>> {
        if (failed(storeElementOutputs(position)))
          return failure();
        return SmallVector<Value>{};
      });
  return failure(failed(done));
}

LogicalResult RowKernelEmitter::emit(gpu::GPUFuncOp kernel) {
  func = kernel;
  emitRowIndices();
  if (!layout.streaming)
    for (int64_t j = 0; j < layout.positions; ++j) {
      Value vectorIndex = arith::AddIOp::create(
          b, loc, laneInRow, kb.constant(j * layout.threadsPerRow));
      registers.push_back(makePosition(
          vectorIndex, (j + 1) * layout.threadsPerRow > layout.vectorsPerRow));
    }
  // Reductions level by level: those that do not depend on one another
  // share a pass over the row and a barrier (layer_norm's corrected mean
  // and its sum of squares); per-row values are computed as soon as their
  // reductions are, outside any pass, so that every later pass can use
  // them.
  int deepest = -1;
  for (Operation &op : body.without_terminator())
    if (isReduction(&op))
      deepest = std::max(deepest, levelOf(op.getResult(0)));
  for (int level = 0; level <= deepest; ++level) {
    if (failed(emitRowValuesUpTo(level - 1)))
      return failure();
    SmallVector<Operation *> batch;
    for (Operation &op : body.without_terminator())
      if (isReduction(&op) && levelOf(op.getResult(0)) == level)
        batch.push_back(&op);
    if (failed(emitReductions(batch)))
      return failure();
  }
  if (failed(emitRowValuesUpTo(deepest)))
    return failure();
  return emitOutputs();
}

/// The thread layout for `info`'s rows.
RowLayout chooseLayout(GroupOp group, const RowKernelInfo &info,
                       int64_t blockSize, int64_t elementsPerThread) {
  RowLayout layout;
  layout.rows = info.shape.rows;
  layout.rowLength = info.shape.rowLength;
  // 16-byte vectors of the widest element, when rows split into them and
  // no broadcast read crosses the innermost dimension of its layout.
  layout.vec = vectorLanes(group);
  if (layout.rowLength % layout.vec != 0)
    layout.vec = 1;
  for (Operation &op : group.getBody().front().without_terminator()) {
    if (op.getNumResults() == 0 ||
        info.kinds.lookup(op.getResult(0)) != RowValueKind::Element)
      continue;
    bool readsBroadcast = llvm::any_of(op.getOperands(), [&](Value v) {
      return info.kinds.lookup(v) == RowValueKind::Broadcast;
    });
    auto shape = cast<RankedTensorType>(op.getResult(0).getType()).getShape();
    if (readsBroadcast && (shape.empty() || shape.back() % layout.vec != 0))
      layout.vec = 1;
  }
  layout.vectorsPerRow = layout.rowLength / layout.vec;

  // Enough threads that each holds at most elementsPerThread elements, and
  // at least a warp when the row has that many vectors.
  const int64_t perThread =
      std::max<int64_t>(1, elementsPerThread / layout.vec);
  int64_t threads =
      powerOfTwoAtLeast((layout.vectorsPerRow + perThread - 1) / perThread);
  threads = std::max(
      threads,
      std::min<int64_t>(kWarpSize, powerOfTwoAtLeast(layout.vectorsPerRow)));
  threads = std::min(threads, kMaxThreadsPerRow);
  layout.threadsPerRow = threads;
  layout.positions = (layout.vectorsPerRow + threads - 1) / threads;
  layout.streaming = layout.positions > perThread;
  layout.rowsPerBlock = threads >= blockSize ? 1 : blockSize / threads;
  return layout;
}

/// The layout of strided rows: 32 rows per block (a warp reads 128
/// contiguous bytes of f32), fewer while the grid would leave more than half
/// of the SMs idle, but never less than a 32-byte sector per warp access;
/// the rest of a block of up to 1024 threads splits each row.
RowLayout chooseStridedLayout(GroupOp group, const RowKernelInfo &info,
                              int64_t smCount, int64_t elementsPerThread) {
  RowLayout layout;
  layout.strided = true;
  layout.rows = info.shape.rows;
  layout.rowLength = layout.vectorsPerRow = info.shape.rowLength;
  int64_t widest = 1;
  for (Type type : group.getOperandTypes())
    widest = std::max<int64_t>(
        widest,
        getElementByteSize(cast<RankedTensorType>(type).getElementType()));
  const int64_t sectorRows = std::max<int64_t>(1, 32 / widest);
  layout.rowsPerBlock = kWarpSize;
  while (layout.rowsPerBlock > sectorRows &&
         2 * ((layout.rows + layout.rowsPerBlock - 1) / layout.rowsPerBlock) <
             std::max<int64_t>(smCount, 1))
    layout.rowsPerBlock /= 2;
  // Whole warps, and no more threads per row than it has elements.
  layout.threadsPerRow =
      std::max(kWarpSize / layout.rowsPerBlock,
               std::min(kMaxThreadsPerRow / layout.rowsPerBlock,
                        powerOfTwoAtLeast(layout.rowLength)));
  layout.positions =
      (layout.rowLength + layout.threadsPerRow - 1) / layout.threadsPerRow;
  layout.streaming = layout.positions > elementsPerThread;
  if (layout.streaming)
    layout.unroll = 4;
  return layout;
}

/// The layout of `group`'s rows and what its values are per element, per
/// row or broadcast. Fails, at the group, on what the row kernel cannot
/// run.
struct RowPlan {
  RowKernelInfo info;
  RowLayout layout;
};

FailureOr<RowPlan> planRowKernel(GroupOp group, const EmitContext &context) {
  Block &body = group.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  RowPlan plan;
  std::string why;
  std::optional<RowKernelInfo> analyzed =
      analyzeRowKernel(ops, llvm::to_vector(yield.getOperands()), why);
  if (!analyzed)
    return group.emitError("this group is not a row-reduction kernel: ") << why;
  plan.info = std::move(*analyzed);
  const EmitterOptions &options = context.options;
  plan.layout =
      plan.info.shape.strided
          ? chooseStridedLayout(group, plan.info, context.target.smCount,
                                options.rowElementsPerThread)
          : chooseLayout(group, plan.info, options.blockSize,
                         options.rowElementsPerThread);
  if (plan.layout.rows == 0 || plan.layout.rowLength == 0)
    return group.emitError("a reduction over an empty tensor is not "
                           "supported for GPU emission");
  return plan;
}

class RowEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "row"; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    if (!llvm::any_of(ops, isReduction))
      return EmitterMatch::notMine();
    std::string why;
    if (analyzeRowKernel(ops, outputs, why))
      return EmitterMatch::accept();
    return EmitterMatch::refuse(why);
  }

  std::string describeRefusal(const EmitterMatch &refusal) const override {
    return "this group is not a row-reduction kernel: " + refusal.reason;
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    FailureOr<RowPlan> plan = planRowKernel(group, context);
    if (failed(plan))
      return failure();
    const RowLayout &layout = plan->layout;
    return context.options.launchFor(layout.threadsPerRow * layout.rowsPerBlock,
                                     (layout.rows + layout.rowsPerBlock - 1) /
                                         layout.rowsPerBlock);
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override {
    FailureOr<RowPlan> plan = planRowKernel(group, context);
    if (failed(plan))
      return failure();
    const RowLayout &layout = plan->layout;
    Type indexType =
        indexTypeFor(group.getContext(), layout.rows * layout.rowLength);
    OpBuilder b(group.getContext());
    Location loc = group.getLoc();
    gpu::GPUFuncOp func = createKernel(b, group, module, name, config.block);
    b.setInsertionPoint(func.getBody().front().getTerminator());

    RowKernelEmitter emitter(group, std::move(plan->info), layout, b, loc,
                             indexType, config,
                             context.options.strictNumerics());
    if (failed(emitter.emit(func))) {
      func.erase();
      return failure();
    }
    return success();
  }
};

} // namespace

std::unique_ptr<KernelEmitter> createRowEmitter() {
  return std::make_unique<RowEmitter>();
}

} // namespace opfuse
