//===- GemmPrologueStatistics.cpp - A prologue's per-row reductions -------===//
//
// A decode step's norm before its projection is a few rows of A: reducing
// them inside the GEMM kernel costs each block a read of those rows from
// L2, where a kernel of its own costs a launch and a dependency between
// grids. Before its main loop every block reduces the rows it multiplies
// over the whole of K (all splits of K need the whole row), in the
// thread-to-row mapping the slice rewrite uses, so each thread ends with
// the per-row values of exactly the rows it rewrites: the threads of a row
// stride over its 16-byte chunks, accumulate in f32 and combine with
// butterfly shuffles. Statistics that read earlier ones (a layer norm's
// variance reads its mean) are reduced in block order, one pass over the
// row each. On the H200's decode GEMMs this pass and the slice rewrites
// cost more than the norm's own kernel, so fuse-elementwise forms such
// prologues only under --gemm-prologues=always (docs/benchmarks.md).
//
//===----------------------------------------------------------------------===//

#include "GemmPrologueReader.h"

#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

namespace {

/// The per-row values the prologue's elements read, in block order, each
/// with the index of the last statistic it needs.
SmallVector<std::pair<Value, size_t>> perRowReads(const GemmPrologue &prologue,
                                                  Value lhs) {
  DenseMap<Operation *, size_t> lastStatistic;
  for (auto [i, statistic] : llvm::enumerate(prologue.statistics))
    lastStatistic[statistic] = i;
  SmallVector<std::pair<Value, size_t>> reads;
  for (Operation *op : prologue.ops) {
    if (!isPerRowPrologueOp(op, lhs))
      continue;
    if (!isReduction(op)) {
      size_t last = 0;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && lastStatistic.count(producer))
          last = std::max(last, lastStatistic[producer]);
      lastStatistic[op] = last;
    }
    const bool readPerElement =
        llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !isPerRowPrologueOp(user, lhs) &&
                 llvm::is_contained(prologue.ops, user);
        });
    if (readPerElement)
      reads.push_back({op->getResult(0), lastStatistic[op]});
  }
  return reads;
}

/// Chunks a thread's statistics pass issues before it needs the first:
/// one 16-byte load each, four registers.
constexpr int64_t kUnrolledChunks = 64;

/// The statistics pass of one block: its rounds of rows, and for each
/// statistic in turn, the chunks of every round reduced into its rows'
/// per-row values.
class StatisticsPass {
public:
  StatisticsPass(GemmKernelEmission &k, const PrologueReader &reader,
                 int64_t segment)
      : k(k), b(k.b), loc(k.loc), gb(k.gb), prologue(k.problem.prologue),
        reader(reader), perChunk(reader.lanes), segment(segment),
        stride(segment * reader.lanes),
        steps(llvm::divideCeil(k.problem.shape.k, stride)),
        // A thread's last chunk may lie past K where the row is not whole
        // strides.
        masked(k.problem.shape.k % stride != 0),
        reads(perRowReads(prologue, k.problem.contraction->getOperand(0))) {}

  /// The rounds of emitPrologueSlice's chunk loop, recorded in `result`
  /// (padding or not); each other one gets the thread's row in it (past
  /// the last row in a partial round: the last row's, never used) and its
  /// place among the row's threads.
  void planRounds(const TileCoordinates &c, Value firstRow, int64_t rows,
                  Value member, int64_t members, PrologueRows &result);

  /// Statistic #`index` reduced for every round, and the per-row values
  /// that need no later statistic evaluated.
  LogicalResult reduce(size_t index, Operation *statistic);

  /// The per-row values into `result`'s rounds.
  void finish(PrologueRows &result);

private:
  struct Round {
    Value mIn, place;
    int64_t index;
    GroupEvaluator::Memo memo;
    DenseMap<Value, Value> known;
  };

  Value constant(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value combine(Operation *statistic, Value x, Value y) {
    if (isa<ReduceMaxOp>(statistic))
      return arith::MaximumFOp::create(b, loc, x, y);
    return arith::AddFOp::create(b, loc, x, y);
  }
  /// Chunk `step` (i32) of `round` folded into `sum`.
  FailureOr<Value> accumulate(Operation *statistic, Round &round, Value step,
                              Value sum, Value identity);
  /// `round`'s chunks reduced by a loop over groups of them.
  FailureOr<Value> accumulateInLoop(Operation *statistic, Round &round,
                                    Value identity);

  GemmKernelEmission &k;
  OpBuilder &b;
  Location loc;
  GemmBuilder &gb;
  const GemmPrologue &prologue;
  const PrologueReader &reader;
  const int64_t perChunk, segment, stride, steps;
  const bool masked;
  const SmallVector<std::pair<Value, size_t>> reads;
  SmallVector<Round> rounds;
};

void StatisticsPass::planRounds(const TileCoordinates &c, Value firstRow,
                                int64_t rows, Value member, int64_t members,
                                PrologueRows &result) {
  const int64_t chunksPerRow = k.t.blockK / perChunk;
  const int64_t m = k.problem.shape.m;
  std::optional<int64_t> rowOffset = getConstantIntValue(firstRow);
  for (int64_t first = 0; first < rows * chunksPerRow; first += members) {
    // Rows at or past M in every tile: their outputs are never stored.
    const bool padding = rowOffset && *rowOffset + first / chunksPerRow >= m;
    result.padding.push_back(padding);
    result.rounds.emplace_back();
    if (padding)
      continue;
    Value chunk = gb.add(member, gb.i32(first));
    Value row = gb.add(
        firstRow, arith::MinUIOp::create(b, loc, gb.divu(chunk, chunksPerRow),
                                         gb.i32(rows - 1)));
    Round &round = rounds.emplace_back();
    round.mIn =
        arith::MinUIOp::create(b, loc, gb.add(c.tileM, row), gb.i32(m - 1));
    round.place = gb.mul(gb.remu(chunk, segment), gb.i32(perChunk));
    round.index = first / members;
  }
}

FailureOr<Value> StatisticsPass::accumulate(Operation *statistic, Round &round,
                                            Value step, Value sum,
                                            Value identity) {
  const int64_t kSize = k.problem.shape.k;
  Value kFirst = gb.add(round.place, gb.mul(step, gb.i32(stride)));
  GroupEvaluator::Memo memo;
  GroupEvaluator evaluator(b, perChunk, memo, k.kb.strictNumerics());
  evaluator.seed(prologue.source, 0, reader.loadSource(round.mIn, kFirst));
  reader.seedInputs(evaluator, round.mIn, kFirst);
  for (auto [value, scalar] : round.known)
    evaluator.seed(value, 0, SmallVector<Value>(perChunk, scalar));
  FailureOr<GroupEvaluator::Lanes> lanes =
      evaluator.evaluate(statistic->getOperand(0), 0);
  if (failed(lanes))
    return failure();
  for (int64_t lane = 0; lane < perChunk; ++lane) {
    Value x = (*lanes)[lane];
    if (masked)
      x = arith::SelectOp::create(
          b, loc, gb.lt(gb.add(kFirst, gb.i32(lane)), gb.i32(kSize)), x,
          identity);
    sum = combine(statistic, sum, x);
  }
  return sum;
}

FailureOr<Value> StatisticsPass::accumulateInLoop(Operation *statistic,
                                                  Round &round,
                                                  Value identity) {
  const int64_t group = kUnrolledChunks / 4;
  auto toIndex = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto loop = scf::ForOp::create(b, loc, toIndex(0), toIndex(steps),
                                 toIndex(group), ValueRange{identity});
  OpBuilder::InsertionGuard guard(b);
  openLoopBody(b, loop);
  Value base = gb.toI32(loop.getInductionVar());
  Value sum = loop.getRegionIterArgs().front();
  for (int64_t step = 0; step < group; ++step) {
    // Steps past the last of a partial group are dropped.
    Value at = gb.add(base, gb.i32(step));
    FailureOr<Value> next = accumulate(statistic, round, at, sum, identity);
    if (failed(next))
      return failure();
    sum = steps % group == 0
              ? *next
              : Value(arith::SelectOp::create(b, loc, gb.lt(at, gb.i32(steps)),
                                              *next, sum));
  }
  scf::YieldOp::create(b, loc, sum);
  return loop.getResult(0);
}

LogicalResult StatisticsPass::reduce(size_t index, Operation *statistic) {
  Value identity = constant(isa<ReduceMaxOp>(statistic)
                                ? -std::numeric_limits<double>::infinity()
                                : 0.0);
  // The chunks unrolled, so that their loads are in flight together (each
  // is an L2 round trip on the kernel's critical path): every round's at
  // once when they are few, else a loop over groups of them.
  SmallVector<Value> sums(rounds.size(), identity);
  if (int64_t(rounds.size()) * steps <= kUnrolledChunks) {
    for (int64_t step = 0; step < steps; ++step)
      for (auto [r, round] : llvm::enumerate(rounds)) {
        FailureOr<Value> sum =
            accumulate(statistic, round, gb.i32(step), sums[r], identity);
        if (failed(sum))
          return failure();
        sums[r] = *sum;
      }
  } else {
    for (auto [r, round] : llvm::enumerate(rounds)) {
      FailureOr<Value> sum = accumulateInLoop(statistic, round, identity);
      if (failed(sum))
        return failure();
      sums[r] = *sum;
    }
  }
  for (auto [r, round] : llvm::enumerate(rounds)) {
    Value total = sums[r];
    for (int64_t offset = segment / 2; offset >= 1; offset /= 2)
      total = combine(statistic, total,
                      gpu::ShuffleOp::create(b, loc, total, gb.i32(offset),
                                             gb.i32(32), gpu::ShuffleMode::XOR)
                          .getShuffleResult());
    if (isa<ReduceMeanOp>(statistic))
      total = arith::DivFOp::create(
          b, loc, total, constant(static_cast<double>(k.problem.shape.k)));
    GroupEvaluator perRow(b, /*width=*/1, round.memo, k.kb.strictNumerics());
    perRow.seed(statistic->getResult(0), 0, {total});
    for (auto [value, last] : reads) {
      if (last != index)
        continue;
      FailureOr<GroupEvaluator::Lanes> scalar = perRow.evaluate(value, 0);
      if (failed(scalar))
        return failure();
      round.known[value] = scalar->front();
    }
  }
  return success();
}

void StatisticsPass::finish(PrologueRows &result) {
  for (Round &round : rounds)
    result.rounds[round.index] = std::move(round.known);
}

} // namespace

FailureOr<PrologueRows> emitPrologueStatistics(GemmKernelEmission &k,
                                               const TileCoordinates &c,
                                               Value firstRow, int64_t rows,
                                               Value member, int64_t members) {
  const GemmPrologue &prologue = k.problem.prologue;
  Operation *contraction = k.problem.contraction;
  FailureOr<PrologueReader> reader = PrologueReader::create(k, c);
  if (failed(reader))
    return failure();
  const int64_t chunksPerRow = k.t.blockK / reader->lanes;
  if (!isa<BlockArgument>(prologue.source) ||
      !llvm::isPowerOf2_64(chunksPerRow) || members % 32 != 0)
    return contraction->emitError(
        "internal error: a GEMM prologue with per-row statistics needs its "
        "source as a group input, a power of two of 16-byte chunks per K "
        "slice and whole warps");
  // The threads of a row in one round: consecutive, inside a warp; each
  // reads the row's chunks `segment` chunks apart.
  StatisticsPass pass(k, *reader, std::min<int64_t>(chunksPerRow, 32));
  PrologueRows result;
  pass.planRounds(c, firstRow, rows, member, members, result);
  for (auto [index, statistic] : llvm::enumerate(prologue.statistics))
    if (failed(pass.reduce(index, statistic)))
      return failure();
  pass.finish(result);
  return result;
}

} // namespace opfuse::gemm
