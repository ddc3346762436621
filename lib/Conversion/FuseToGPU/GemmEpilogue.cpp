//===- GemmEpilogue.cpp - The group's elementwise ops on accumulators -----===//
//
// Each thread maps its accumulator pairs to their (row, column), reads the
// group's other inputs at the broadcast index of the output (splat
// constants are scalars), evaluates the group's elementwise ops in f32
// with the shared GroupEvaluator and stores every output once: as pairs
// when N is even, guarded where the tile is partial, row-major or through
// the transposes and reshapes that follow the matmul (its store layout);
// a slice of the result (Q, K or V of a QKV projection) is stored where
// the element lies inside it. Where every output is 16-bit and its rows
// and slices are 8-element aligned, the four threads that share a row of
// four n8 tiles trade their pairs (a 4x4 transpose in two butterfly
// shuffles) so that each stores 16 bytes, a quarter of the store
// instructions: an output-heavy GEMM (QK^T with K = 128) is otherwise
// bound by the store queue.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"
#include "GroupEvaluator.h"

#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

namespace {

/// The epilogue inputs of one store, loaded before the chunk's stores.
using Inputs = DenseMap<Value, SmallVector<Value>>;

/// One store of 1 or 2 accumulators: (row, col), and whether it lies in
/// the output (null where every tile is whole).
struct Output {
  Value row, col;
  SmallVector<Value, 2> lanes;
  Value valid;
};

/// A chunk is one m16 tile's rows against kEpilogueChunk n8 tiles: 16 or
/// 32 stores a thread, a few registers for the inputs of each.
constexpr int64_t kEpilogueChunk = 8;

/// The epilogue of one GEMM kernel: what every store needs, computed once.
class Epilogue {
public:
  Epilogue(GemmKernelEmission &k, const MainLoop &loop, bool vectorStores)
      : vectorStores(vectorStores), k(k), b(k.b), loc(k.loc), gb(k.gb),
        kb(k.kb), group(k.group), problem(k.problem), shape(problem.shape),
        contraction(problem.contraction), output(problem.output),
        body(group.getBody().front()), loop(loop),
        yield(cast<YieldOp>(body.getTerminator())),
        batchIndices(loop.current.batchIndices) {
    // The prologue's ops ran on A in shared memory (GemmPrologue.cpp).
    DenseSet<Operation *> prologue(problem.prologue.ops.begin(),
                                   problem.prologue.ops.end());
    for (Operation &op : body.without_terminator())
      if (!prologue.contains(&op))
        ops.push_back(&op);
  }

  LogicalResult emit();

private:
  /// The epilogue inputs of `count` consecutive outputs at (row, col).
  Inputs loadInputs(Value row, Value col, int64_t count);
  SmallVector<Value> indicesOf(Value row, Value col);
  /// The group's ops on `lanes` (1 or 2 consecutive accumulators) and
  /// the loaded `values`: each output's lanes.
  FailureOr<SmallVector<GroupEvaluator::Lanes>>
  evaluateAt(ArrayRef<Value> lanes, const Inputs &values);
  /// Where output `index` stores element (row, col), and whether it lies
  /// inside the output's slice (null: no slice cuts it). Row-major outputs
  /// share `rowMajor`, computed by the first of them.
  std::pair<Value, Value> storeOffset(unsigned index, Value row, Value col,
                                      Value &rowMajor);
  /// Computes the group's ops on `lanes` and `values` and stores the
  /// results at (row, col).
  LogicalResult storeAt(Value row, Value col, ArrayRef<Value> lanes,
                        const Inputs &values);
  /// The outputs of m16 tile `i` against n8 tiles from `j0` (a chunk).
  SmallVector<Output> chunkOutputs(int64_t i, int64_t j0);
  /// Whether every output can be stored 16 bytes at a time: 16-bit
  /// elements, rows and slices of multiples of 8, four n8 tiles a warp.
  bool canStoreVectors();
  /// The element type of output `index`.
  Type elementTypeOf(unsigned index) {
    return cast<RankedTensorType>(group.getResultTypes()[index])
        .getElementType();
  }
  /// The epilogue with 16-byte stores (canStoreVectors).
  LogicalResult emitVectorStores();

  bool vectorStores;
  GemmKernelEmission &k;
  OpBuilder &b;
  Location loc;
  GemmBuilder &gb;
  KernelBuilder &kb;
  GroupOp group;
  const GemmProblem &problem;
  const GemmShape &shape;
  Operation *contraction;
  RankedTensorType output;
  Block &body;
  const MainLoop &loop;
  YieldOp yield;
  SmallVector<Operation *> ops;
  SmallVector<Value> batchIndices;
  llvm::MapVector<Value, InputAccess> epilogueInputs;
  /// Where each result is stored (getStoreLayout): `base`, the value in
  /// the matmul's index space it is made of, written row-major when the
  /// layout has no strides, else at offset + sum(index[d] * strides[d]),
  /// and through a slice only inside the box [lower, upper).
  SmallVector<StridedView> storeLayouts;
  bool fullTiles = false;
  Value group8, quad, batchBase;
  /// A grouped conv2d's first output column of the tile's group (index
  /// type; null otherwise).
  Value groupColumn;
};

SmallVector<Value> Epilogue::indicesOf(Value row, Value col) {
  SmallVector<Value> indices(batchIndices);
  if (problem.conv || problem.rowsFolded)
    indices = kb.decompose(gb.toIndexType(row), output.getShape().drop_back());
  else
    indices.push_back(gb.toIndexType(row));
  indices.push_back(groupColumn ? gb.add(groupColumn, gb.toIndexType(col))
                                : gb.toIndexType(col));
  return indices;
}

// Loaded for a whole chunk of accumulators before any of the chunk is
// stored: a load after a store cannot move above it (the output may alias
// an input as far as LLVM and ptxas know), so loading per output would pay
// one memory latency per accumulator pair. Outside a ragged edge the
// indices are clamped to the last row and column instead of guarded: the
// values are read and never stored.
Inputs Epilogue::loadInputs(Value row, Value col, int64_t count) {
  if (!fullTiles) {
    row = arith::MinUIOp::create(b, loc, row, gb.i32(shape.m - 1));
    col = arith::MinUIOp::create(b, loc, col, gb.i32(shape.n - count));
  }
  SmallVector<Value> indices = indicesOf(row, col);
  Inputs values;
  for (auto &[argument, access] : epilogueInputs) {
    Type type = cast<RankedTensorType>(argument.getType()).getElementType();
    Value pointer =
        k.entry.getArgument(cast<BlockArgument>(argument).getArgNumber());
    Value offset = kb.broadcastOffset(
        access, access.isScalar ? ArrayRef<Value>() : ArrayRef<Value>(indices));
    if (access.innerContiguous && count > 1) {
      values[argument] = kb.load(pointer, type, offset, count);
    } else {
      Value one = kb.load(pointer, type, offset, 1).front();
      values[argument] = SmallVector<Value>(count, one);
    }
  }
  return values;
}

FailureOr<SmallVector<GroupEvaluator::Lanes>>
Epilogue::evaluateAt(ArrayRef<Value> lanes, const Inputs &values) {
  GroupEvaluator::Memo memo;
  GroupEvaluator evaluator(b, lanes.size(), memo, kb.strictNumerics());
  for (const auto &[argument, loaded] : values)
    evaluator.seed(argument, 0, loaded);
  evaluator.seed(contraction->getResult(0), 0, SmallVector<Value>(lanes));
  // Views and an attention's sequence concat are operand layouts, not
  // values of the epilogue.
  for (Operation *op : ops)
    if (op != contraction && !fuse::isStridedViewOp(op) &&
        !isa<fuse::ConcatOp>(op) &&
        failed(evaluator.evaluate(op->getResult(0), 0)))
      return failure();
  SmallVector<GroupEvaluator::Lanes> results;
  for (const StridedView &layout : storeLayouts) {
    FailureOr<GroupEvaluator::Lanes> result =
        evaluator.evaluate(layout.base, 0);
    if (failed(result))
      return failure();
    results.push_back(std::move(*result));
  }
  return results;
}

std::pair<Value, Value> Epilogue::storeOffset(unsigned index, Value row,
                                              Value col, Value &rowMajor) {
  const StridedView &layout = storeLayouts[index];
  // In the index type: the output may hold more than 2^31 elements.
  if (layout.strides.empty()) {
    if (!rowMajor)
      rowMajor = gb.add(
          batchBase,
          gb.add(gb.mul(gb.toIndexType(row),
                        kb.constant(output.getDimSize(output.getRank() - 1))),
                 gb.toIndexType(col)));
    return {rowMajor, Value()};
  }
  // Columns stay consecutive (GemmKernel.h), so pairs stay pairs.
  SmallVector<Value> indices = indicesOf(row, col);
  Value offset = kb.constant(layout.offset);
  for (auto [d, index] : llvm::enumerate(indices))
    offset =
        gb.add(offset, layout.strides[d] == 1
                           ? index
                           : gb.mul(index, kb.constant(layout.strides[d])));
  // Inside the slice's box, on the dimensions it cuts.
  Value inside;
  for (auto [d, bounds] :
       llvm::enumerate(llvm::zip(layout.lower, layout.upper))) {
    auto [lower, upper] = bounds;
    if (lower == 0 && upper == output.getDimSize(d))
      continue;
    Value within = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, indices[d],
                              kb.constant(lower)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, indices[d],
                              kb.constant(upper)));
    inside = inside ? arith::AndIOp::create(b, loc, inside, within) : within;
  }
  return {offset, inside};
}

LogicalResult Epilogue::storeAt(Value row, Value col, ArrayRef<Value> lanes,
                                const Inputs &values) {
  FailureOr<SmallVector<GroupEvaluator::Lanes>> results =
      evaluateAt(lanes, values);
  if (failed(results))
    return failure();
  const unsigned numInputs = group.getNumOperands();
  Value rowMajor;
  for (auto [index, result] : llvm::enumerate(*results)) {
    auto [offset, inside] = storeOffset(index, row, col, rowMajor);
    OpBuilder::InsertionGuard guard(b);
    if (inside) {
      auto ifInside = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    }
    kb.store(k.entry.getArgument(numInputs + index), elementTypeOf(index),
             offset, result);
  }
  return success();
}

SmallVector<Output> Epilogue::chunkOutputs(int64_t i, int64_t j0) {
  const SmallVector<Value> &acc = loop.acc;
  Value tileM = loop.current.tileM, tileN = loop.current.tileN;
  Value warpRow = k.warpRow, warpCol = k.warpCol;
  const int64_t nTiles = k.nTiles, mTileRows = k.mTileRows;
  const bool pairs = shape.n % 2 == 0;
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
  return chunk;
}

bool Epilogue::canStoreVectors() {
  if (k.nTiles % 4 != 0 || shape.n % 8 != 0)
    return false;
  const unsigned rank = output.getRank();
  for (auto [index, layout] : llvm::enumerate(storeLayouts)) {
    if (getElementByteSize(getStorageType(elementTypeOf(index))) != 2)
      return false;
    if (layout.strides.empty())
      continue;
    // Eight consecutive columns at an address of a multiple of 8, and a
    // slice (where one cuts the output) that takes all or none of them.
    if (layout.offset % 8 != 0 ||
        llvm::any_of(ArrayRef(layout.strides).drop_back(),
                     [](int64_t stride) { return stride % 8 != 0; }))
      return false;
    if (!layout.lower.empty() &&
        (layout.lower[rank - 1] % 8 != 0 || layout.upper[rank - 1] % 8 != 0))
      return false;
  }
  return true;
}

/// Lane q of each quad holds `words[t]`, the pair of columns 2q, 2q + 1 of
/// n8 tile t; afterwards it holds tile q's eight columns, from lane 0's
/// pair to lane 3's: the 4x4 transpose in two butterfly rounds, each
/// trading the half of the tiles the partner keeps.
static SmallVector<Value> transposeQuad(GemmBuilder &gb, ArrayRef<Value> words,
                                        Value quad) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  SmallVector<Value> held(words);
  for (int64_t bit : {1, 2}) {
    Value upper = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, quad, gb.i32(bit)), gb.i32(0));
    SmallVector<Value> next(4);
    // Tiles t and t + bit: the lower lane keeps t and gets the partner's
    // t; the upper keeps t + bit and gets the partner's t + bit.
    for (int64_t t = 0; t < 4; ++t) {
      if (t & bit)
        continue;
      Value low = held[t], high = held[t + bit];
      Value send = arith::SelectOp::create(b, loc, upper, low, high);
      Value got = NVVM::ShflOp::create(b, loc, b.getI32Type(), gb.i32(-1), send,
                                       gb.i32(bit), gb.i32(0x1f),
                                       NVVM::ShflKind::bfly, UnitAttr());
      next[t] = arith::SelectOp::create(b, loc, upper, got, low);
      next[t + bit] = arith::SelectOp::create(b, loc, upper, high, got);
    }
    held = std::move(next);
  }
  return held;
}

LogicalResult Epilogue::emitVectorStores() {
  const SmallVector<Value> &acc = loop.acc;
  Value tileM = loop.current.tileM, tileN = loop.current.tileN;
  const unsigned numInputs = group.getNumOperands();
  // Each lane stores n8 tile (first + quad) of four: its first column.
  Value laneTile = gb.mul(quad, gb.i32(8));
  // A chunk's inputs are all loaded before its first store, as in the
  // pair epilogue (loadInputs): 16 loads in flight, not 4.
  constexpr int64_t kTilesPerChunk = 8;
  for (int64_t i = 0; i < k.accMTiles; ++i)
    for (int64_t j0 = 0; j0 < k.nTiles; j0 += kTilesPerChunk) {
      const int64_t tiles = std::min(kTilesPerChunk, k.nTiles - j0);
      Value rows[2];
      SmallVector<Inputs> inputs[2];
      for (int64_t half = 0; half < 2; ++half) {
        rows[half] = gb.add(gb.add(tileM, k.warpRow),
                            gb.add(gb.i32(i * k.mTileRows + half * 8), group8));
        for (int64_t t = 0; t < tiles; ++t) {
          Value col =
              gb.add(gb.add(tileN, k.warpCol),
                     gb.add(gb.i32((j0 + t) * 8), gb.mul(quad, gb.i32(2))));
          inputs[half].push_back(loadInputs(rows[half], col, 2));
        }
      }
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t t0 = 0; t0 < tiles; t0 += 4) {
          Value row = rows[half];
          // Every output's pairs of the four tiles, packed.
          SmallVector<SmallVector<Value>> words(storeLayouts.size());
          for (int64_t t = t0; t < t0 + 4; ++t) {
            const int64_t first = (i * k.nTiles + j0 + t) * 4 + half * 2;
            FailureOr<SmallVector<GroupEvaluator::Lanes>> results =
                evaluateAt({acc[first], acc[first + 1]}, inputs[half][t]);
            if (failed(results))
              return failure();
            for (auto [index, result] : llvm::enumerate(*results))
              words[index].push_back(
                  kb.packLanes(result, elementTypeOf(index)));
          }
          // The shuffles are the whole warp's; only the stores are guarded.
          Value col = gb.add(gb.add(tileN, k.warpCol),
                             gb.add(gb.i32((j0 + t0) * 8), laneTile));
          Value valid;
          if (!fullTiles)
            valid = arith::AndIOp::create(b, loc, gb.lt(row, gb.i32(shape.m)),
                                          gb.lt(col, gb.i32(shape.n)));
          Value rowMajor;
          for (auto [index, packed] : llvm::enumerate(words)) {
            SmallVector<Value> vector = transposeQuad(gb, packed, quad);
            auto [offset, inside] = storeOffset(index, row, col, rowMajor);
            Value condition = valid;
            if (inside)
              condition = condition
                              ? arith::AndIOp::create(b, loc, condition, inside)
                              : inside;
            OpBuilder::InsertionGuard guard(b);
            if (condition) {
              auto store = scf::IfOp::create(b, loc, condition,
                                             /*withElse=*/false);
              b.setInsertionPointToStart(&store.getThenRegion().front());
            }
            kb.storePacked(k.entry.getArgument(numInputs + index),
                           elementTypeOf(index), offset, vector);
          }
        }
    }
  return success();
}

LogicalResult Epilogue::emit() {
  // Inputs other than the matmul's operands (directly or through views)
  // are read at the broadcast
  // index of the output; splat constants are scalars. In argument order
  // (not a DenseMap's pointer order): the loads, and so the PTX, are the
  // same from one compile to the next.
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    // Views feeding the contraction are its operands' layouts, the
    // prologue's inputs were read into A, and a concat (the only one a
    // GEMM kernel holds joins an attention's K or V along the sequence)
    // was read piece by piece.
    bool used = llvm::any_of(argument.getUsers(), [&](Operation *user) {
      return user != contraction && !fuse::isStridedViewOp(user) &&
             !isa<fuse::ConcatOp>(user) &&
             !llvm::is_contained(problem.prologue.ops, user);
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
  for (Value value : yield.getOperands()) {
    std::string why;
    std::optional<StridedView> layout = getStoreLayout(
        value, [&](Operation *op) { return op->getBlock() == &body; }, why);
    if (!layout)
      return group.emitOpError("GEMM kernel cannot store its result: ") << why;
    // Row-major when no view follows: no strides to multiply by.
    if (layout->base == value)
      layout->strides.clear();
    storeLayouts.push_back(std::move(*layout));
  }
  fullTiles = shape.m % k.t.blockM == 0 && shape.n % k.t.blockN == 0;
  group8 = gb.divu(k.lane, 4);
  quad = gb.remu(k.lane, 4);
  // A grouped conv2d's batch is its group: a block of shape.n columns of
  // each output row. Otherwise batches are whole M x N outputs.
  const bool grouped = problem.conv && problem.shape.batch > 1;
  batchBase =
      arith::MulIOp::create(b, loc, gb.toIndexType(loop.current.batch),
                            kb.constant(grouped ? shape.n : shape.m * shape.n));
  if (grouped)
    groupColumn = batchBase;
  if (vectorStores && canStoreVectors())
    return emitVectorStores();

  auto guarded = [&](Value condition, auto emit) -> LogicalResult {
    if (!condition)
      return emit();
    auto guard = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    return emit();
  };
  for (int64_t i = 0; i < k.accMTiles; ++i)
    for (int64_t j0 = 0; j0 < k.nTiles; j0 += kEpilogueChunk) {
      SmallVector<Output> chunk = chunkOutputs(i, j0);
      SmallVector<Inputs> inputs;
      for (const Output &out : chunk)
        inputs.push_back(loadInputs(out.row, out.col, out.lanes.size()));
      for (auto [outRef, loadedRef] : llvm::zip(chunk, inputs)) {
        // Named, not structured bindings: a lambda may not capture those
        // before C++20.
        const Output &out = outRef;
        const Inputs &loaded = loadedRef;
        if (failed(guarded(out.valid, [&] {
              return storeAt(out.row, out.col, out.lanes, loaded);
            })))
          return failure();
      }
    }
  return success();
}

} // namespace

LogicalResult emitGemmEpilogue(GemmKernelEmission &k, const MainLoop &loop,
                               bool vectorStores) {
  return Epilogue(k, loop, vectorStores).emit();
}

} // namespace opfuse::gemm
