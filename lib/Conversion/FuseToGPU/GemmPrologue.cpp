//===- GemmPrologue.cpp - Elementwise ops on A slices in shared memory ----===//
//
// A matmul whose A operand is computed by elementwise ops (a norm's scaling
// by its per-row statistic and per-column weight, an activation) copies the
// one input of A's shape those ops start from into its stages like any A,
// and rewrites each K slice in place before the MMAs read it: a thread
// takes 16-byte chunks of the slice's rows, evaluates the prologue on them
// in f32 with the shared GroupEvaluator (the other inputs read at each
// element's broadcast index, clamped inside the tensor where the tile is
// ragged) and stores the chunk back in A's element type. Columns past K
// stay zero, whatever the prologue makes of the copy's zero fill: B is
// zero there too, but 0 x inf would not be. Rows past M are computed and
// never stored. The schedules order the rewrite between the slice's
// arrival and its MMAs (GemmMmaSync, GemmCooperative, GemmWarpSpecialized).
// Per-row statistics computed in the kernel (GemmPrologueStatistics.cpp)
// enter each element as its row's value.
//
//===----------------------------------------------------------------------===//

#include "GemmPrologueReader.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

FailureOr<PrologueReader> PrologueReader::create(GemmKernelEmission &k,
                                                 const TileCoordinates &c) {
  const GemmProblem &problem = k.problem;
  const GemmPrologue &prologue = problem.prologue;
  Value lhs = problem.contraction->getOperand(0);
  ArrayRef<int64_t> lhsShape = cast<RankedTensorType>(lhs.getType()).getShape();
  PrologueReader reader(k);
  reader.lanes = 16 / problem.elementBytes;
  // Vector loads of inputs along K stay inside the tensor when K is whole
  // chunks (the last chunk's start is clamped to K - lanes).
  reader.wholeChunks = problem.shape.k % reader.lanes == 0;
  Block &body = k.group.getBody().front();
  DenseSet<Value> leaves;
  for (Operation *op : prologue.ops)
    for (Value operand : op->getOperands())
      if (auto argument = dyn_cast<BlockArgument>(operand);
          argument && argument.getOwner() == &body)
        leaves.insert(argument);
  auto inputOf = [&](BlockArgument argument) -> FailureOr<Input> {
    auto type = cast<RankedTensorType>(argument.getType());
    FailureOr<InputAccess> access =
        analyzeInput(k.group, type, lhsShape, argument.getArgNumber());
    if (failed(access))
      return failure();
    return Input{argument, type.getElementType(), *access};
  };
  for (BlockArgument argument : body.getArguments()) {
    if (!leaves.contains(argument) || argument == prologue.source)
      continue;
    FailureOr<Input> input = inputOf(argument);
    if (failed(input))
      return failure();
    reader.inputs.push_back(*input);
  }
  if (auto source = dyn_cast<BlockArgument>(prologue.source);
      source && source.getOwner() == &body) {
    FailureOr<Input> input = inputOf(source);
    if (failed(input))
      return failure();
    reader.source = *input;
  }

  // A's batch indices: the output's, right-aligned, 0 where A broadcasts.
  const int64_t lhsBatch = lhsShape.size() - 2;
  const int64_t offset = int64_t(c.batchIndices.size()) - lhsBatch;
  for (int64_t d = 0; d < lhsBatch && !problem.rowsFolded; ++d)
    reader.batchIndices.push_back(
        lhsShape[d] == 1 ? k.kb.constant(0) : c.batchIndices[offset + d]);
  return reader;
}

SmallVector<Value> PrologueReader::indicesAt(Value mIn, Value kIndex) const {
  GemmBuilder &gb = k->gb;
  ArrayRef<int64_t> lhsShape =
      cast<RankedTensorType>(k->problem.contraction->getOperand(0).getType())
          .getShape();
  // With the batch folded into the rows, A's batch indices are the row's.
  SmallVector<Value> indices(batchIndices);
  if (k->problem.rowsFolded)
    llvm::append_range(
        indices, k->kb.decompose(gb.toIndexType(mIn), lhsShape.drop_back()));
  else
    indices.push_back(gb.toIndexType(mIn));
  indices.push_back(gb.toIndexType(kIndex));
  return indices;
}

SmallVector<Value> PrologueReader::loadAt(const Input &input, Value mIn,
                                          Value kFirst) const {
  OpBuilder &b = k->b;
  Location loc = k->loc;
  GemmBuilder &gb = k->gb;
  KernelBuilder &kb = k->kb;
  const int64_t kSize = k->problem.shape.k;
  Value base = k->entry.getArgument(input.argument.getArgNumber());
  if (input.access.isScalar || !input.access.innerContiguous) {
    Value at = kb.broadcastOffset(input.access, input.access.isScalar
                                                    ? SmallVector<Value>()
                                                    : indicesAt(mIn, kFirst));
    Value one = kb.load(base, input.elementType, at, 1).front();
    return SmallVector<Value>(lanes, one);
  }
  if (wholeChunks) {
    Value kIn = arith::MinUIOp::create(b, loc, kFirst, gb.i32(kSize - lanes));
    return kb.load(base, input.elementType,
                   kb.broadcastOffset(input.access, indicesAt(mIn, kIn)),
                   lanes);
  }
  SmallVector<Value> result;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    Value kIn = arith::MinUIOp::create(b, loc, gb.add(kFirst, gb.i32(lane)),
                                       gb.i32(kSize - 1));
    result.push_back(
        kb.load(base, input.elementType,
                kb.broadcastOffset(input.access, indicesAt(mIn, kIn)), 1)
            .front());
  }
  return result;
}

PrologueInputLanes PrologueReader::loadInputs(Value mIn, Value kFirst) const {
  PrologueInputLanes lanes;
  for (const Input &input : inputs)
    lanes.push_back({input.argument, loadAt(input, mIn, kFirst)});
  return lanes;
}

void PrologueReader::seedInputs(GroupEvaluator &evaluator, Value mIn,
                                Value kFirst) const {
  for (auto &[argument, lanes] : loadInputs(mIn, kFirst))
    evaluator.seed(argument, 0, lanes);
}

/// Where round `first` of a slice's chunk loop puts a thread: its chunk's
/// row in the tile and first column in the slice.
static std::pair<Value, Value> chunkPlace(GemmKernelEmission &k, Value firstRow,
                                          Value member, int64_t first,
                                          int64_t perChunk) {
  GemmBuilder &gb = k.gb;
  const int64_t chunksPerRow = k.t.blockK / perChunk;
  Value chunk = gb.add(member, gb.i32(first));
  Value row = gb.add(firstRow, gb.divu(chunk, chunksPerRow));
  Value col = gb.mul(gb.remu(chunk, chunksPerRow), gb.i32(perChunk));
  return {row, col};
}

FailureOr<SmallVector<PrologueInputLanes>>
emitPrologueInputLoads(GemmKernelEmission &k, const TileCoordinates &c,
                       Value slice, Value firstRow, int64_t rows, Value member,
                       int64_t members, const PrologueRows *rowValues) {
  FailureOr<PrologueReader> reader = PrologueReader::create(k, c);
  if (failed(reader))
    return failure();
  GemmBuilder &gb = k.gb;
  const int64_t perChunk = reader->lanes;
  const int64_t chunks = rows * (k.t.blockK / perChunk);
  SmallVector<PrologueInputLanes> result;
  for (int64_t first = 0; first < chunks; first += members) {
    result.emplace_back();
    if (rowValues && rowValues->padding[first / members])
      continue;
    // Loads clamped inside the tensors: safe for a partial round's
    // threads past the last chunk, whose lanes are never used.
    auto [row, col] = chunkPlace(k, firstRow, member, first, perChunk);
    Value mIn = arith::MinUIOp::create(k.b, k.loc, gb.add(c.tileM, row),
                                       gb.i32(k.problem.shape.m - 1));
    Value kFirst = gb.add(gb.mul(slice, gb.i32(k.t.blockK)), col);
    result.back() = reader->loadInputs(mIn, kFirst);
  }
  return result;
}

SmallVector<Value> PrologueReader::loadSource(Value mIn, Value kFirst) const {
  assert(source.argument && "the prologue's source is not a group input");
  return loadAt(source, mIn, kFirst);
}

LogicalResult emitPrologueSlice(GemmKernelEmission &k, const TileCoordinates &c,
                                Value slice, Value stage, Value firstRow,
                                int64_t rows, Value member, int64_t members,
                                const PrologueRows *rowValues,
                                const SmallVector<PrologueInputLanes> *inputs) {
  const GemmProblem &problem = k.problem;
  const GemmPrologue &prologue = problem.prologue;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  KernelBuilder &kb = k.kb;
  const MatmulTiling &t = k.t;
  const GemmShape &shape = problem.shape;
  Value lhs = problem.contraction->getOperand(0);
  FailureOr<PrologueReader> reader = PrologueReader::create(k, c);
  if (failed(reader))
    return failure();
  // Without the block's statistics computed before its main loop (a
  // schedule that walks several tiles), the slice computes its own.
  PrologueRows ownRows;
  if (!prologue.statistics.empty() && !rowValues) {
    FailureOr<PrologueRows> computed =
        emitPrologueStatistics(k, c, firstRow, rows, member, members);
    if (failed(computed))
      return failure();
    ownRows = std::move(*computed);
    rowValues = &ownRows;
  }
  const int64_t perChunk = reader->lanes;
  const int64_t chunksPerRow = t.blockK / perChunk;
  const bool raggedK = shape.k % t.blockK != 0;

  Value aBase = gb.add(gb.mul(stage, gb.i32(problem.stageBytes)),
                       gb.i32(problem.a.stageOffset));
  auto storage = b.getIntegerType(problem.elementBytes * 8);
  auto chunkType = VectorType::get({4}, b.getI32Type());
  const int64_t chunks = rows * chunksPerRow;
  for (int64_t first = 0; first < chunks; first += members) {
    if (rowValues && rowValues->padding[first / members])
      continue;
    OpBuilder::InsertionGuard guard(b);
    Value chunk = gb.add(member, gb.i32(first));
    if (first + members > chunks) {
      auto inside = scf::IfOp::create(b, loc, gb.lt(chunk, gb.i32(chunks)),
                                      /*withElse=*/false);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
    }
    auto [row, col] = chunkPlace(k, firstRow, member, first, perChunk);
    Value pointer = gb.sharedPointer(
        k.smem, gb.add(aBase, gb.tileOffset(problem.a, row, col)));
    Value words = LLVM::LoadOp::create(b, loc, chunkType, pointer, 16);
    Value elements = LLVM::BitcastOp::create(
        b, loc, VectorType::get({perChunk}, storage), words);
    SmallVector<Value> source;
    for (int64_t lane = 0; lane < perChunk; ++lane) {
      Value bits =
          LLVM::ExtractElementOp::create(b, loc, elements, gb.i32(lane));
      Value value = LLVM::BitcastOp::create(b, loc, problem.elementType, bits);
      if (!problem.elementType.isF32())
        value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
      source.push_back(value);
    }
    // The element's index in A; outside it, clamped for the loads.
    Value m = gb.add(c.tileM, row);
    Value kFirst = gb.add(gb.mul(slice, gb.i32(t.blockK)), col);
    Value mIn = arith::MinUIOp::create(b, loc, m, gb.i32(shape.m - 1));
    GroupEvaluator::Memo memo;
    GroupEvaluator evaluator(b, perChunk, memo, kb.strictNumerics());
    evaluator.seed(prologue.source, 0, source);
    if (inputs)
      for (auto &[argument, lanes] : (*inputs)[first / members])
        evaluator.seed(argument, 0, lanes);
    else
      reader->seedInputs(evaluator, mIn, kFirst);
    if (rowValues)
      for (auto [value, scalar] : rowValues->rounds[first / members])
        evaluator.seed(value, 0, SmallVector<Value>(perChunk, scalar));
    FailureOr<GroupEvaluator::Lanes> result = evaluator.evaluate(lhs, 0);
    if (failed(result))
      return failure();
    SmallVector<Value> lanes(*result);
    if (raggedK) {
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
      for (int64_t lane = 0; lane < perChunk; ++lane) {
        Value inside = gb.lt(gb.add(kFirst, gb.i32(lane)), gb.i32(shape.k));
        lanes[lane] =
            arith::SelectOp::create(b, loc, inside, lanes[lane], zero);
      }
    }
    Value packed = kb.packLanes(lanes, problem.elementType);
    LLVM::StoreOp::create(b, loc,
                          LLVM::BitcastOp::create(b, loc, chunkType, packed),
                          pointer, 16);
  }
  return success();
}

} // namespace opfuse::gemm
