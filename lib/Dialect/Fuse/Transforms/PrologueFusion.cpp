//===- PrologueFusion.cpp - Which ops a GEMM computes its A from ----------===//
//
// The chain is grown backwards from A through elementwise ops as long as
// the kernel could evaluate them per element of an A slice; the verdict
// compares the kernels' work with and without it on the roofline, like
// the pass's other decisions.
//
//===----------------------------------------------------------------------===//

#include "PrologueFusion.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace opfuse::fuse {

namespace {

/// Whether `value` is computed from the function's arguments and
/// constants by elementwise ops alone (memoised in `pure`).
bool isArgumentsOnly(Value value, DenseMap<Operation *, bool> &pure) {
  Operation *def = value.getDefiningOp();
  if (!def || isSplatConstant(def))
    return true;
  auto it = pure.find(def);
  if (it != pure.end())
    return it->second;
  pure[def] = false; // No cycles in SSA; guards re-entry all the same.
  bool result = isElementwise(def) &&
                llvm::all_of(def->getOperands(), [&](Value operand) {
                  return isArgumentsOnly(operand, pure);
                });
  pure[def] = result;
  return result;
}

/// What evaluating `op` on one element of an A slice costs, in units of a
/// simple f32 instruction: IEEE division and pow run a subroutine, the
/// transcendental functions a few special-function instructions, the
/// activations built from them more.
int64_t unitsOf(Operation *op) {
  if (isSplatConstant(op))
    return 0;
  if (isa<DivOp, ReciprocalOp, PowOp>(op))
    return 30;
  if (isa<SigmoidOp, SiluOp, GeluOp, ErfOp>(op))
    return 16;
  if (isa<ExpOp, LogOp, TanhOp, SqrtOp, RsqrtOp, SinOp, CosOp>(op))
    return 8;
  return 1;
}

/// Units every element of a slice costs besides its ops: the shared-memory
/// load and store and the conversions to f32 and back.
constexpr int64_t kUnitsPerElement = 4;
/// Units each input read at the element's broadcast index costs.
constexpr int64_t kUnitsPerInput = 2;
/// The share of the FP32 lanes' rate a prologue's units run at. The
/// rewrite sits between a slice's arrival and its MMAs, so its time adds
/// to the K loop's instead of overlapping the tensor cores; fitted on the
/// H200 to four GEMMs (bench/gemm_compare.py's prologue graphs,
/// 2026-12-02: relu before 2 and 16 column tiles, rows scaled by two
/// factors, a softmax before P.V), where a unit of one element took 15 to
/// 18 fs: one unit per FP32 lane-op at 0.8 to 1.0 of the lanes' rate.
constexpr double kPrologueRate = 0.9;

/// The most rows of A for which a prologue computes their statistics in
/// the GEMM: every block reads its rows over the whole of K, which a
/// decode step's few tokens make cheap.
constexpr int64_t kMaxStatisticRows = 64;

/// Whether reduction `op` reduces a value of A's shape `full` over its last
/// axis, keeping it (what GEMM prologues compute per row).
bool isStatisticOf(Operation *op, ArrayRef<int64_t> full) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  return input.getShape() == full && isa<FloatType>(input.getElementType()) &&
         axes.size() == 1 && axes.front() == input.getRank() - 1 &&
         op->hasAttr("keepdims");
}

} // namespace

FailureOr<PrologueChain>
findPrologueChain(MatmulOp matmul, llvm::function_ref<bool(Operation *)> taken,
                  bool withStatistics, std::string &why) {
  PrologueChain chain;
  chain.matmul = matmul;
  Value lhs = matmul.getLhs();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  ArrayRef<int64_t> full = lhsType.getShape();
  const int64_t fullElements = getNumElements(lhsType);
  Operation *def = lhs.getDefiningOp();
  if (!def || def->getBlock() != matmul->getBlock() || !isElementwise(def) ||
      taken(def)) {
    why = "A is not computed by an elementwise op outside a kernel";
    return failure();
  }
  if (matmul.getTransposeA()) {
    why = "a prologue needs A row-major (transpose_a is set)";
    return failure();
  }
  DenseMap<Operation *, bool> pure;
  // A's rows are few enough for every block to reduce them itself.
  const bool statistics =
      withStatistics &&
      fullElements / std::max<int64_t>(full.back(), 1) <= kMaxStatisticRows &&
      full.back() > 1;
  auto joins = [&](Operation *op) {
    if (!op || op->getBlock() != matmul->getBlock() || taken(op))
      return false;
    if (isSplatConstant(op))
      return true;
    if (statistics && isReduction(op))
      return isStatisticOf(op, full);
    if (!isElementwise(op))
      return false;
    if (statistics && isPerRowPrologueOp(op, lhs))
      return true;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!broadcastsTo(type.getShape(), full))
      return false;
    return getNumElements(type) == fullElements ||
           isArgumentsOnly(op->getResult(0), pure);
  };
  // The chain from A back to `stop` (a leaf there), or through every op
  // that joins when `stop` is null.
  auto grow = [&](Value stop, PrologueChain &result) {
    llvm::SetVector<Operation *> ops;
    result.leaves.clear();
    SmallVector<Operation *> stack = {def};
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (!ops.insert(op))
        continue;
      for (Value operand : op->getOperands()) {
        if (operand != stop && joins(operand.getDefiningOp()))
          stack.push_back(operand.getDefiningOp());
        else
          result.leaves.insert(operand);
      }
    }
    result.ops.assign(ops.begin(), ops.end());
    llvm::sort(result.ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
  };
  auto isSourceLike = [&](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return type.getShape() == full &&
           type.getElementType() == lhsType.getElementType();
  };
  auto fullLeavesOf = [&](const PrologueChain &candidate) {
    SmallVector<Value> fullLeaves;
    for (Value leaf : candidate.leaves)
      if (cast<RankedTensorType>(leaf.getType()).getShape() == full)
        fullLeaves.push_back(leaf);
    return fullLeaves;
  };
  // The widest chain first; where it reads several values of A's shape
  // (a residual add before a norm), the chain stops at one of A's type
  // that it computes, the earliest that leaves it the only one.
  PrologueChain widest;
  grow(Value(), widest);
  SmallVector<Value> sources;
  for (Value leaf : widest.leaves)
    if (isSourceLike(leaf))
      sources.push_back(leaf);
  for (Operation *op : widest.ops)
    if (op != def && isSourceLike(op->getResult(0)))
      sources.push_back(op->getResult(0));
  for (Value candidate : sources) {
    PrologueChain attempt;
    attempt.matmul = matmul;
    grow(candidate, attempt);
    SmallVector<Value> fullLeaves = fullLeavesOf(attempt);
    if (fullLeaves.size() == 1 && fullLeaves.front() == candidate) {
      attempt.source = candidate;
      return attempt;
    }
  }
  SmallVector<Value> fullLeaves = fullLeavesOf(widest);
  if (fullLeaves.size() != 1) {
    why = llvm::formatv("it reads {0} values of A's shape; a GEMM copies one",
                        fullLeaves.size());
    return failure();
  }
  why = "the value of A's shape it starts from is not of A's element type";
  return failure();
}

PrologueVerdict judgePrologue(const PrologueChain &chain,
                              const opfuse::CostModel &model) {
  PrologueVerdict verdict;
  MatmulOp matmul = chain.matmul;
  Value lhs = matmul.getLhs();
  const int64_t lhsBytes = getByteSize(lhs.getType());
  const int64_t elements = getNumElements(lhs.getType());
  llvm::DenseSet<Operation *> members(chain.ops.begin(), chain.ops.end());
  // GEMMs that read A as it is could each take the chain; anything else
  // reading A needs it in memory.
  int64_t gemmReaders = 0;
  for (OpOperand &use : lhs.getUses()) {
    auto reader = dyn_cast<MatmulOp>(use.getOwner());
    if (!reader || use.getOperandNumber() != 0) {
      verdict.reason = "A is also read by " + describeOp(use.getOwner()) +
                       ", so it is written anyway";
      return verdict;
    }
    ++gemmReaders;
  }
  // The chain's own kernel goes away when nothing else reads its values.
  bool vanishes = true;
  for (Operation *op : chain.ops)
    for (Operation *user : op->getUsers())
      if (!members.contains(user) &&
          !(isa<MatmulOp>(user) && user->getNumOperands() &&
            user->getOperand(0) == lhs))
        vanishes = false;
  opfuse::Work chainWork;
  int64_t units = kUnitsPerElement, statisticUnits = 0;
  const int64_t statistics = llvm::count_if(chain.ops, isReduction);
  for (Operation *op : chain.ops) {
    opfuse::Work own = model.work(op);
    chainWork.flops += own.flops;
    chainWork.computeSeconds += own.computeSeconds;
    // With statistics, per-row ops run once a row, and what precedes a
    // reduction once per element and statistic besides the slice's pass.
    if (!statistics)
      units += unitsOf(op);
    else if (!isPerRowPrologueOp(op, lhs))
      (isReduction(op) || llvm::any_of(op->getUsers(), isReduction)
           ? statisticUnits
           : units) += unitsOf(op);
  }
  if (statistics)
    statisticUnits += units;
  int64_t leafBytes = 0;
  for (Value leaf : chain.leaves) {
    if (isSplatConstant(leaf.getDefiningOp()))
      continue;
    leafBytes += getByteSize(leaf.getType());
    if (leaf != chain.source && getNumElements(leaf.getType()) > 1)
      units += kUnitsPerInput;
  }
  chainWork.bytes = leafBytes + lhsBytes;
  // Where the source is computed in the block and read only by the chain,
  // the chain would be its producer's epilogue: the prologue would only
  // trade writing A for writing the source. Where the chain reads only
  // the function's inputs, it is a kernel of its own, which goes when
  // nothing else reads its values; otherwise (a norm's second half, in its
  // statistic's kernel) only A's write goes.
  Operation *sourceDef = chain.source.getDefiningOp();
  const bool sourceOnlyInChain =
      llvm::all_of(chain.source.getUsers(),
                   [&](Operation *user) { return members.contains(user); });
  const char *what = "A no longer written";
  if (sourceDef && sourceOnlyInChain) {
    what = "the source written instead of A";
    const int64_t fewer = lhsBytes - getByteSize(chain.source.getType());
    verdict.savedSeconds = fewer > 0 ? fewer / model.bandwidthFor(fewer) : 0;
  } else if (vanishes &&
             (statistics || llvm::all_of(chain.leaves, [](Value leaf) {
                Operation *def = leaf.getDefiningOp();
                return !def || isSplatConstant(def);
              }))) {
    // With its statistics the chain is a whole norm, whose kernel goes; the
    // elementwise ops its source comes from can join their producer.
    what = "its kernel no longer running";
    verdict.savedSeconds = model.predict(chainWork).seconds();
  } else {
    verdict.savedSeconds = lhsBytes / model.bandwidthFor(chainWork.bytes);
  }
  verdict.savedSeconds /= gemmReaders;

  // The GEMM evaluates the chain on every A element once per column tile.
  const int64_t n = matmul.getType().getShape().back();
  std::vector<opfuse::TilingEstimate> tilings =
      opfuse::rankMatmulTilings(matmul, model.target().chip, model.target());
  const int64_t blockN = tilings.empty() ? 128 : tilings.front().tiling.blockN;
  const int64_t splits = tilings.empty() ? 1 : tilings.front().tiling.splitK;
  verdict.columnTiles = (n + blockN - 1) / blockN;
  verdict.addedSeconds = double(units) * elements * verdict.columnTiles /
                         (model.target().fp32Flops * kPrologueRate);
  if (statistics) {
    // Every block reads A's rows once per statistic, from L2, and
    // evaluates the reductions' operands on them.
    const double blocks = double(verdict.columnTiles) * splits;
    const double bytes = blocks * statistics * lhsBytes;
    verdict.addedSeconds +=
        bytes / (model.target().l2Bandwidth * model.target().memoryEfficiency) +
        double(statisticUnits) * elements * blocks /
            (model.target().fp32Flops * kPrologueRate);
  }
  const int64_t extraReads = leafBytes - lhsBytes;
  if (extraReads > 0)
    verdict.addedSeconds += extraReads / model.bandwidthFor(extraReads);
  verdict.pays = verdict.savedSeconds > verdict.addedSeconds;
  verdict.reason = llvm::formatv(
      "{0} saves {1:F2} ns, recomputing it per column tile ({2} tiles, {3} "
      "units an element) adds {4:F2} ns on {5}",
      what, verdict.savedSeconds * 1e9, verdict.columnTiles, units,
      verdict.addedSeconds * 1e9, model.target().name);
  if (statistics) {
    // The estimate above misses what the H200 measured: the rows' pass
    // before the main loop and each slice's rewrite and second barrier sit
    // on a skinny GEMM's critical path, and cost it more than the norm's
    // own kernel (docs/benchmarks.md, 2026-12-04). Only `always` takes it.
    verdict.pays = false;
    verdict.reason = llvm::formatv(
        "it reduces {0} per-row statistic(s) of A: every block would reduce "
        "its rows over K before its main loop and rewrite each K slice, "
        "measured slower than the norm's own kernel on decode GEMMs "
        "(the roofline estimate, {1:F2} ns saved against {2:F2} ns added, "
        "misses that latency)",
        statistics, verdict.savedSeconds * 1e9, verdict.addedSeconds * 1e9);
  }
  return verdict;
}

} // namespace opfuse::fuse
