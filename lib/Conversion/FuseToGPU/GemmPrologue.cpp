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
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"
#include "GroupEvaluator.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

namespace {

/// An input of the prologue other than the copied one, and how it is read
/// over A's index space.
struct PrologueInput {
  BlockArgument argument;
  Type elementType;
  InputAccess access;
};

} // namespace

LogicalResult emitPrologueSlice(GemmKernelEmission &k, const TileCoordinates &c,
                                Value slice, Value stage, Value firstRow,
                                int64_t rows, Value member, int64_t members) {
  const GemmProblem &problem = k.problem;
  const GemmPrologue &prologue = problem.prologue;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  KernelBuilder &kb = k.kb;
  const MatmulTiling &t = k.t;
  const GemmShape &shape = problem.shape;
  Value lhs = problem.contraction->getOperand(0);
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  ArrayRef<int64_t> lhsShape = lhsType.getShape();
  const int64_t perChunk = 16 / problem.elementBytes;
  const int64_t chunksPerRow = t.blockK / perChunk;
  // Vector loads of inputs along K stay inside the tensor when K is whole
  // chunks (the last chunk's start is clamped to K - perChunk).
  const bool wholeChunks = shape.k % perChunk == 0;
  const bool raggedK = shape.k % t.blockK != 0;

  Block &body = k.group.getBody().front();
  DenseSet<Value> leaves;
  for (Operation *op : prologue.ops)
    for (Value operand : op->getOperands())
      if (auto argument = dyn_cast<BlockArgument>(operand);
          argument && argument.getOwner() == &body)
        leaves.insert(argument);
  SmallVector<PrologueInput> inputs;
  for (BlockArgument argument : body.getArguments()) {
    if (!leaves.contains(argument) || argument == prologue.source)
      continue;
    auto type = cast<RankedTensorType>(argument.getType());
    FailureOr<InputAccess> access =
        analyzeInput(k.group, type, lhsShape, argument.getArgNumber());
    if (failed(access))
      return failure();
    inputs.push_back({argument, type.getElementType(), *access});
  }

  // A's batch indices: the output's, right-aligned, 0 where A broadcasts.
  SmallVector<Value> batchIndices;
  const int64_t lhsBatch = lhsShape.size() - 2;
  const int64_t offset = int64_t(c.batchIndices.size()) - lhsBatch;
  for (int64_t d = 0; d < lhsBatch && !problem.rowsFolded; ++d)
    batchIndices.push_back(lhsShape[d] == 1 ? kb.constant(0)
                                            : c.batchIndices[offset + d]);

  Value aBase = gb.add(gb.mul(stage, gb.i32(problem.stageBytes)),
                       gb.i32(problem.a.stageOffset));
  auto storage = b.getIntegerType(problem.elementBytes * 8);
  auto chunkType = VectorType::get({4}, b.getI32Type());
  const int64_t chunks = rows * chunksPerRow;
  for (int64_t first = 0; first < chunks; first += members) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk = gb.add(member, gb.i32(first));
    if (first + members > chunks) {
      auto inside = scf::IfOp::create(b, loc, gb.lt(chunk, gb.i32(chunks)),
                                      /*withElse=*/false);
      b.setInsertionPointToStart(&inside.getThenRegion().front());
    }
    Value row = gb.add(firstRow, gb.divu(chunk, chunksPerRow));
    Value col = gb.mul(gb.remu(chunk, chunksPerRow), gb.i32(perChunk));
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
    // With the batch folded into the rows, A's batch indices are the row's.
    SmallVector<Value> rowIndices =
        problem.rowsFolded
            ? kb.decompose(gb.toIndexType(mIn), lhsShape.drop_back())
            : SmallVector<Value>{gb.toIndexType(mIn)};
    auto indicesAt = [&](Value kIndex) {
      SmallVector<Value> indices(batchIndices);
      llvm::append_range(indices, rowIndices);
      indices.push_back(gb.toIndexType(kIndex));
      return indices;
    };
    GroupEvaluator::Memo memo;
    GroupEvaluator evaluator(b, perChunk, memo, kb.strictNumerics());
    evaluator.seed(prologue.source, 0, source);
    for (const PrologueInput &input : inputs) {
      Value base = k.entry.getArgument(input.argument.getArgNumber());
      SmallVector<Value> lanes;
      if (input.access.isScalar || !input.access.innerContiguous) {
        Value at = kb.broadcastOffset(input.access, input.access.isScalar
                                                        ? SmallVector<Value>()
                                                        : indicesAt(kFirst));
        Value one = kb.load(base, input.elementType, at, 1).front();
        lanes.assign(perChunk, one);
      } else if (wholeChunks) {
        Value kIn =
            arith::MinUIOp::create(b, loc, kFirst, gb.i32(shape.k - perChunk));
        lanes =
            kb.load(base, input.elementType,
                    kb.broadcastOffset(input.access, indicesAt(kIn)), perChunk);
      } else {
        for (int64_t lane = 0; lane < perChunk; ++lane) {
          Value kIn = arith::MinUIOp::create(
              b, loc, gb.add(kFirst, gb.i32(lane)), gb.i32(shape.k - 1));
          lanes.push_back(
              kb.load(base, input.elementType,
                      kb.broadcastOffset(input.access, indicesAt(kIn)), 1)
                  .front());
        }
      }
      evaluator.seed(input.argument, 0, lanes);
    }
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
