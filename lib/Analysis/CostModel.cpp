//===- CostModel.cpp - Roofline cost of ops and kernels -------------------===//
//
// Compute time sums each op's FLOPs over its own ceiling, so a kernel that
// fuses a matmul with an elementwise epilogue costs the matmul at tensor-core
// rate and the epilogue at CUDA-core rate. Memory, compute and link transfers
// overlap (the max), the launch does not (the sum).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/CostModel.h"

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/FuseTraits.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowWindows.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <set>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

llvm::StringRef boundName(BoundKind kind) {
  switch (kind) {
  case BoundKind::Compute:
    return "compute";
  case BoundKind::Memory:
    return "memory";
  case BoundKind::Communication:
    return "communication";
  }
  llvm_unreachable("unknown bound kind");
}

Work &Work::operator+=(const Work &other) {
  flops += other.flops;
  computeSeconds += other.computeSeconds;
  bytes += other.bytes;
  linkBytes += other.linkBytes;
  contraction = contraction || other.contraction;
  tailSeconds += other.tailSeconds;
  return *this;
}

double Prediction::seconds() const {
  return std::max({computeSeconds, memorySeconds, linkSeconds}) + tailSeconds +
         launchSeconds;
}

/// The fused attention kernel's time in FLOP-equivalents at the tensor
/// ceiling, fitted on six cases on the H200 and judged on eighteen others
/// and fourteen held-out shapes (docs/cost-model.md). The TMA-fed wgmma
/// kernel (sm_90, head dims that are multiples of 64) overlaps its softmax
/// with its products, so its time is a sum of three terms over the scores
/// it computes (whole tiles of 128 query rows and 128 keys: the diagonal
/// tiles of a causal mask and the last tiles of a ragged sequence are
/// computed whole): the products' FLOPs (a coefficient below 1: the part
/// that overlaps is counted in the softmax term), a cost per score (its
/// exponential and the softmax around it) and a cost per block of query
/// rows (the Q tile, the pipeline's fill and drain, the epilogue). The
/// mma.sync kernel reaches a fixed share of the ceiling.
constexpr double kAttentionProductShare = 0.545;
constexpr double kAttentionFlopsPerScore = 215.3;
constexpr double kAttentionFlopsPerBlock = 12640324.0;
constexpr double kAttentionMmaSyncShare = 0.42;
/// The per-block term's share left where the blocks persist
/// (persistentAttentionPays): a query tile's fill and drain overlap the
/// next one's. Persistence saved 35-60% of the term at 1k and 4k keys on
/// the H200 (tma:BMx128 against tma:BMx128/persistent, 2026-12-04): the
/// middle, not a fit.
constexpr double kAttentionPersistentBlockShare = 0.5;
/// The tiles the model counts computed scores in: 128 query rows (a
/// decode step's 64 or fewer: its rows as they are, split-key blocks
/// computing no padded row's softmax worth counting) and 128 keys.
constexpr int64_t kAttentionTileRows = 128, kAttentionTileKeys = 128;
/// The cp.async-fed wgmma kernel (--no-tma) against the TMA-fed one: 1.1-1.3x
/// slower at head dim 128 on the H200 (--tilings tma:128x128 wgmma:128x128,
/// 2026-12-03); the middle of that range, not a fit.
constexpr double kAttentionCpAsyncSlowdown = 1.2;

// Fitted on the tuning set (examples/ and bench/graphs/, H200, calibrated
// target, 2026-12-03; bench/heldout/ was kept out): docs/cost-model.md.
/// An f32 GEMM or convolution runs on FMAs at this share of the FP32
/// ceiling: bench/graphs/matmul_f32_4096.mlir, 24.9 of 63.4 TFLOP/s.
constexpr double kFmaGemmShare = 0.39;
/// A 16-bit implicit-GEMM convolution at this share of the tensor ceiling:
/// bench/graphs/conv_resnet.mlir, 19.3 us of MMAs where 11.7 were predicted.
constexpr double kConvShare = 0.6;

double CostModel::flopsCeiling(Operation *op) const {
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    RankedTensorType q = attention.getQ().getType(),
                     v = attention.getV().getType();
    Type element = attention.getType().getElementType();
    if (element.isF16() || element.isBF16()) {
      const double ceiling = target_.fp16TensorFlops * target_.tensorEfficiency;
      const bool hopper = target_.chip == "sm_90" || target_.chip == "sm_90a";
      const int64_t d = q.getDimSize(3), dv = v.getDimSize(3);
      if (!hopper || d % 64 != 0 || dv % 64 != 0)
        return ceiling * kAttentionMmaSyncShare;
      const double heads = q.getDimSize(0) * q.getDimSize(1);
      const int64_t sq = q.getDimSize(2);
      const int64_t rows = sq <= 64 ? sq : kAttentionTileRows;
      const int64_t tilesM = llvm::divideCeil(sq, rows);
      const int64_t sk = attention.getK().getType().getDimSize(2);
      const int64_t keyTiles = llvm::divideCeil(sk, kAttentionTileKeys);
      const double scores =
          heads * attention.getComputedKeyTiles(rows, kAttentionTileKeys) *
          rows * kAttentionTileKeys;
      // Blocks persist (the tiling's rule) where they pay and the query
      // tiles outnumber the SMs (counted in the model's 128-row tiles: 192-row
      // ones fall below the SMs only for grids near one wave).
      const bool persistent =
          attentionTma && sq > 64 && target_.smCount > 0 &&
          heads * tilesM > target_.smCount &&
          persistentAttentionPays(sk, attention.getCausal(),
                                  attention.getMask() != nullptr);
      const double blocks =
          heads * tilesM * (persistent ? kAttentionPersistentBlockShare : 1.0);
      auto work = [&](double scores, double blocks) {
        return (kAttentionProductShare * scores * 2 * (d + dv) +
                kAttentionFlopsPerScore * scores +
                kAttentionFlopsPerBlock * blocks) *
               (attentionTma ? 1.0 : kAttentionCpAsyncSlowdown);
      };
      double equivalent = work(scores, blocks);
      // A grid of fewer blocks than SMs takes as long as its longest
      // block (the last query tile: every key tile) at one SM's share of
      // the ceiling. Decode steps split their keys among blocks to fill
      // the SMs, so theirs is the throughput term above.
      if (sq > 64 && target_.smCount > 0)
        equivalent =
            std::max(equivalent,
                     target_.smCount * work(static_cast<double>(rows) *
                                                keyTiles * kAttentionTileKeys,
                                            1.0));
      // The rate at which the op's own FLOP count takes that long.
      return ceiling * static_cast<double>(attention.getFlops()) / equivalent;
    }
  }
  if (isa<MatmulOp, Conv2DOp, AttentionOp>(op)) {
    Type element =
        cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
    const double share = isa<Conv2DOp>(op) ? kConvShare : 1.0;
    if (element.isF16() || element.isBF16())
      return target_.fp16TensorFlops * target_.tensorEfficiency * share;
    return target_.fp32Flops * target_.computeEfficiency * kFmaGemmShare;
  }
  return target_.fp32Flops * target_.computeEfficiency;
}

/// How many times the FLOPs of the GEMM or convolution `contraction` its
/// kernel computes: tiles compute whole rows of the shortest tile the tile
/// model offers (shortestTileRows), so 8 rows in a 16-row skinny tile do
/// twice their work and 16 f32 rows in a 64-row tile four times, and a
/// grouped convolution's 8 filters a group in a 64-column tile eight
/// times. The tiling itself is picked after this analysis.
static double rowPadding(Operation *contraction) {
  if (!isa<MatmulOp, Conv2DOp>(contraction))
    return 1.0;
  const GemmShape shape = getGemmShape(contraction);
  if (shape.m <= 0)
    return 1.0;
  Type element = cast<RankedTensorType>(contraction->getOperand(0).getType())
                     .getElementType();
  const int64_t rows =
      shortestTileRows(shape, element.isF16() || element.isBF16());
  double padding =
      static_cast<double>(llvm::divideCeil(shape.m, rows) * rows) / shape.m;
  // A grouped convolution's GEMM per group has as many columns as the
  // group's filters, and tiles are at least 64 wide.
  if (isa<Conv2DOp>(contraction) && shape.batch > 1 && shape.n > 0)
    padding *= static_cast<double>(llvm::alignTo(shape.n, 64)) / shape.n;
  return padding;
}

Work CostModel::work(Operation *op) const {
  Work result;
  auto cost = dyn_cast<CostInterface>(op);
  if (!cost)
    return result;
  result.bytes = cost.getBytesRead() + cost.getBytesWritten();
  result.linkBytes = cost.getCommunicationBytes();
  result.flops = static_cast<double>(cost.getFlops());
  if (auto group = dyn_cast<GroupOp>(op)) {
    for (Operation &inner : group.getBody().front()) {
      auto innerCost = dyn_cast<CostInterface>(inner);
      if (!innerCost)
        continue;
      double seconds = innerCost.getFlops() / flopsCeiling(&inner);
      if (isContraction(&inner)) {
        result.contraction = true;
        seconds *= rowPadding(&inner);
        result.tailSeconds += splitKTailSeconds(op, &inner);
      }
      result.computeSeconds += seconds;
    }
    result.computeSeconds *= overlapSlowdown(op);
    if (!result.contraction)
      result.computeSeconds =
          std::max(result.computeSeconds, issueSeconds(group));
    return result;
  }
  result.contraction = isContraction(op);
  result.computeSeconds = result.flops / flopsCeiling(op) *
                          (result.contraction ? rowPadding(op) : 1);
  if (result.contraction) {
    result.tailSeconds = splitKTailSeconds(op, op);
    result.computeSeconds *= overlapSlowdown(op);
  }
  return result;
}

// Each op of a kernel without a contraction (loop, view, transpose and row
// kernels) costs its lanes one instruction per element of its result, and
// each window it reads (a slice or a gather) its bytes through the SMs'
// L1, which moves 128 bytes a clock where the schedulers issue 128 lane
// instructions: both at the FP32 lane rate, half the FP32 FLOP ceiling (an
// FMA is 2 FLOPs). Derived, not fitted: with it the depthwise windows
// kernels of bench/depthwise_compare.py were predicted 7-25% under their
// H100 times (the large ones; the small ones are bound by latency),
// against 16-83% without (docs/cost-model.md), and the H200 tuning and
// held-out kernels kept their errors (their ops are few: memory bounds
// them); the FLOP term above counts only arithmetic, and these kernels
// issue a cast, a select and a load for every multiply-add.
double CostModel::issueSeconds(Operation *kernel) const {
  auto group = dyn_cast<GroupOp>(kernel);
  if (!group || target_.fp32Flops <= 0)
    return 0;
  // Where a thread computes `rows` neighbouring outputs of a row, the
  // windows of a row of taps they share are loaded (and selected from the
  // padding) once: each slice of the set costs its share of the distinct
  // windows.
  DenseMap<Operation *, double> windowShare;
  if (const int64_t rows = windowRowsOf ? windowRowsOf(kernel) : 1; rows > 1)
    for (const fuse::RowWindowSet &set : fuse::findRowWindows(group)) {
      const double share =
          double(set.columnsFor(rows)) / double(rows * set.offsets.size());
      for (fuse::SliceOp slice : set.slices)
        windowShare[slice] = share;
    }
  double laneCycles = 0;
  for (Operation &inner : group.getBody().front()) {
    if (isa<YieldOp, ReshapeOp>(inner) || isSplatConstant(&inner) ||
        inner.getNumResults() != 1)
      continue;
    auto type = cast<RankedTensorType>(inner.getResult(0).getType());
    double elements = static_cast<double>(getNumElements(type));
    if (auto share = windowShare.find(&inner); share != windowShare.end())
      elements *= share->second;
    laneCycles += elements;
    if (isa<SliceOp, GatherOp>(inner))
      laneCycles += elements * type.getElementTypeBitWidth() / 8.0;
  }
  return laneCycles / (target_.fp32Flops / 2 * target_.computeEfficiency);
}

// A GEMM that leaves SMs to a collective beside it (fuse.overlap_sms)
// computes on the rest.
double CostModel::overlapSlowdown(Operation *kernel) const {
  const int64_t sms = fuse::getOverlapSms(kernel);
  if (sms <= 0 || sms >= target_.smCount)
    return 1.0;
  return double(target_.smCount) / (target_.smCount - sms);
}

// As the tile model prices it (rankMatmulTilings): every block stores its
// f32 partial tile, ceil(blocks / SMs) of them on the busiest SM, and the
// last block of each tile sums its P partials, ceil(tiles / SMs) tiles on
// the busiest SM, all at the SM's share of L2 bandwidth. Not fitted: the split
// GEMMs of the tuning set measured 14-35% above their roofline prediction
// before it was added (docs/cost-model.md).
double CostModel::splitKTailSeconds(Operation *kernel,
                                    Operation *contraction) const {
  if (!gemmTilingOf || !isGemmContraction(contraction) || target_.smCount <= 0)
    return 0;
  std::optional<MatmulTiling> tiling = gemmTilingOf(kernel);
  if (!tiling || tiling->splitK <= 1)
    return 0;
  const int64_t tiles = countOutputTiles(getGemmShape(contraction), *tiling);
  const int64_t blocks = tiles * tiling->splitK;
  const double partialBytes = 4.0 * tiling->blockM * tiling->blockN;
  const double l2PerSm = bandwidth(/*fromL2=*/true) / target_.smCount;
  return (llvm::divideCeil(blocks, target_.smCount) +
          llvm::divideCeil(tiles, target_.smCount) * tiling->splitK) *
         partialBytes / l2PerSm;
}

double CostModel::bandwidthFor(int64_t bytes) const {
  return bandwidth(fitsInL2(bytes));
}

double CostModel::bandwidth(bool fromL2) const {
  return (fromL2 ? target_.l2Bandwidth : target_.hbmBandwidth) *
         target_.memoryEfficiency;
}

bool CostModel::fitsInL2(int64_t bytes) const {
  return bytes <= target_.l2Bytes;
}

double CostModel::workSeconds(const Work &work) const {
  Prediction prediction = predict(work);
  return prediction.seconds() - prediction.launchSeconds;
}

Prediction CostModel::predict(const Work &work) const {
  Prediction prediction;
  prediction.computeSeconds = work.computeSeconds;
  prediction.tailSeconds = work.tailSeconds;
  // A contraction kernel's operands stream through its pipeline at HBM
  // speed even when they fit in the L2: the 33.7 MB skinny GEMMs of the
  // tuning set ran within 3-15% of the HBM prediction and 30-40% slower
  // than the L2 one, where an elementwise kernel of the same bytes runs at
  // L2 speed (docs/cost-model.md).
  prediction.fitsInL2 = !work.contraction && fitsInL2(work.bytes);
  prediction.memorySeconds = work.bytes / bandwidth(prediction.fitsInL2);
  prediction.linkSeconds =
      work.linkBytes ? work.linkBytes / target_.linkBandwidth : 0;
  prediction.launchSeconds =
      target_.launchOverhead + (work.linkBytes ? 0 : target_.kernelLatency);
  prediction.bound = BoundKind::Memory;
  if (prediction.computeSeconds > prediction.memorySeconds)
    prediction.bound = BoundKind::Compute;
  if (prediction.linkSeconds >
      std::max(prediction.computeSeconds, prediction.memorySeconds))
    prediction.bound = BoundKind::Communication;
  return prediction;
}

double CostModel::ridge(Operation *op) const {
  return flopsCeiling(op) / (target_.hbmBandwidth * target_.memoryEfficiency);
}

FailureOr<CostModel> loadCostModel(llvm::StringRef spec, MLIRContext *context,
                                   llvm::StringRef passName) {
  llvm::Expected<GpuTarget> target = loadTarget(spec);
  if (!target) {
    emitError(UnknownLoc::get(context))
        << passName << ": " << llvm::toString(target.takeError());
    return failure();
  }
  return CostModel(std::move(*target));
}

bool launchesKernel(Operation *op) {
  return !isa<ConstantOp, ReshapeOp, func::ReturnOp>(op);
}

int64_t GraphAnalysis::bytes() const {
  int64_t total = 0;
  for (const KernelAnalysis &kernel : kernels)
    total += kernel.work.bytes;
  return total;
}

double GraphAnalysis::flops() const {
  double total = 0;
  for (const KernelAnalysis &kernel : kernels)
    total += kernel.work.flops;
  return total;
}

double scheduleSeconds(llvm::ArrayRef<ScheduledStep> steps) {
  // When each step ends, and when each stream's last step ends.
  std::vector<double> end(steps.size(), 0);
  double kernels = 0, beside = 0;
  for (auto [index, step] : llvm::enumerate(steps)) {
    double start =
        step.beside || step.joins ? std::max(kernels, beside) : kernels;
    for (size_t earlier : step.after)
      if (earlier < index)
        start = std::max(start, end[earlier]);
    end[index] = start + step.seconds;
    (step.beside ? beside : kernels) = end[index];
  }
  return std::max(kernels, beside);
}

double GraphAnalysis::seconds() const {
  std::vector<ScheduledStep> steps;
  for (const KernelAnalysis &kernel : kernels) {
    ScheduledStep step;
    step.seconds = kernel.prediction.seconds();
    step.beside = kernel.beside;
    step.joins = kernel.collective && !kernel.beside;
    step.after = kernel.reads;
    steps.push_back(std::move(step));
  }
  return scheduleSeconds(steps);
}

double GraphAnalysis::serialSeconds() const {
  double total = 0;
  for (const KernelAnalysis &kernel : kernels)
    total += kernel.prediction.seconds();
  return total;
}

int GraphAnalysis::overlappedSteps() const {
  return llvm::count_if(kernels,
                        [](const KernelAnalysis &k) { return k.beside; });
}

double GraphAnalysis::hiddenSeconds() const {
  return std::max(0.0, serialSeconds() - seconds());
}

int GraphAnalysis::collectiveSteps() const {
  return llvm::count_if(kernels,
                        [](const KernelAnalysis &k) { return k.collective; });
}

double GraphAnalysis::collectiveSeconds() const {
  double total = 0;
  for (const KernelAnalysis &kernel : kernels)
    if (kernel.collective)
      total += kernel.prediction.seconds();
  return total;
}

namespace {
std::string formatLocation(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return (fileLoc.getFilename().getValue() + ":" +
            llvm::Twine(fileLoc.getLine()) + ":" +
            llvm::Twine(fileLoc.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = formatLocation(inner); !text.empty())
        return text;
  if (auto named = dyn_cast<NameLoc>(loc))
    return formatLocation(named.getChildLoc());
  return "";
}

/// "fuse.mul" -> "mul".
std::string shortName(Operation *op) {
  return op->getName().stripDialect().str();
}
} // namespace

GraphAnalysis analyzeFunction(func::FuncOp func, const CostModel &model) {
  GraphAnalysis graph;
  graph.function = func.getSymName().str();
  int kernels = 0, collectives = 0;
  // The step that wrote each value (through the reshapes that alias it).
  llvm::DenseMap<Value, size_t> stepOf;
  auto overlapSms =
      fuse::getFuseDialect(func.getContext()).getOverlapSmsAttrHelper();
  for (Operation &op : func.getBody().getOps()) {
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      if (auto it = stepOf.find(reshape.getInput()); it != stepOf.end())
        stepOf[reshape.getResult()] = it->second;
    if (!launchesKernel(&op))
      continue;
    KernelAnalysis kernel;
    kernel.collective = isCollective(&op);
    kernel.beside = kernel.collective && overlapSms.getAttr(&op);
    for (Value operand : op.getOperands())
      if (auto it = stepOf.find(operand); it != stepOf.end())
        kernel.reads.push_back(it->second);
    for (Value result : op.getResults())
      stepOf[result] = graph.kernels.size();
    kernel.name =
        (graph.function + (kernel.collective ? "_c" + llvm::Twine(collectives++)
                                             : "_k" + llvm::Twine(kernels++)))
            .str();
    kernel.location = formatLocation(op.getLoc());
    std::set<std::string> classes;
    auto record = [&](Operation *member) {
      if (isa<ConstantOp, YieldOp>(member))
        return;
      kernel.ops.push_back(shortName(member));
      if (std::optional<OperatorClass> cls = getOperatorClass(member))
        classes.insert(stringifyOperatorClass(*cls).str());
    };
    if (auto group = dyn_cast<GroupOp>(op))
      for (Operation &inner : group.getBody().front())
        record(&inner);
    else
      record(&op);
    for (const std::string &cls : classes)
      kernel.opClass += (kernel.opClass.empty() ? "" : "+") + cls;
    kernel.work = model.work(&op);
    kernel.prediction = model.predict(kernel.work);
    graph.kernels.push_back(std::move(kernel));
  }
  return graph;
}

} // namespace opfuse
