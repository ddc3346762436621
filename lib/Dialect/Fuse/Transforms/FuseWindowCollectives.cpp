//===- FuseWindowCollectives.cpp - Overlap a GEMM with its all_reduce -----===//
//
// Splits matmul -> all_reduce (a row-parallel layer) into row chunks so
// that the runtime reduces one chunk over NCCL while the next multiplies.
// The chunk count comes from a two-stream schedule of the chunks: the
// roofline's GEMM and all_reduce, each GEMM chunk scaled by the tile
// model's ratio of a chunk on the SMs left to NCCL to the whole GEMM, so
// that the waves a smaller grid loses count against the communication it
// hides.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEWINDOWCOLLECTIVES
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;

namespace {

constexpr llvm::StringLiteral kPass = "fuse-window-collectives";

constexpr opfuse::PassStatistic windowsFormed{
    "windows", "GEMM and all_reduce pairs split into overlapping chunks"};

/// Chunk counts tried, and the rows a chunk must hold a multiple of: whole
/// 128-row tiles of the wgmma tilings, so that no chunk pays a ragged edge.
constexpr int64_t kChunkCounts[] = {2, 3, 4, 6, 8};
constexpr int64_t kChunkRowMultiple = 128;
/// A window must save at least this share of the layer's time: below it
/// the prediction's error is larger than the gain.
constexpr double kMinGain = 0.05;

/// A matmul -> all_reduce pair and the axis its rows split along.
struct Layer {
  MatmulOp matmul;
  AllReduceOp reduce;
  /// The result's (and the left operand's) axis the chunks cut.
  int64_t axis = 0;
  /// Rows of M in one unit of `axis`: the product of the dimensions after
  /// it up to M.
  int64_t rowsPerUnit = 1;
};

/// The layer `reduce` ends, or why it is not one this pass splits.
FailureOr<Layer> matchLayer(AllReduceOp reduce, std::string &why) {
  auto fail = [&](std::string reason) {
    why = std::move(reason);
    return failure();
  };
  if (reduce.getDevices() <= 1)
    return fail("one device: there is nothing to send");
  auto matmul = reduce.getInput().getDefiningOp<MatmulOp>();
  if (!matmul)
    return fail("its input is not a matmul");
  if (!matmul->hasOneUse())
    return fail("the matmul's result has users besides the all_reduce");
  if (matmul.getTransposeA())
    return fail("the matmul's left operand is transposed, so its rows are "
                "not contiguous");
  auto result = cast<RankedTensorType>(matmul.getType());
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  if (rhs.getRank() != 2 || lhs.getRank() != result.getRank())
    return fail("the matmul is batched on both operands");
  for (Operation *user : reduce->getUsers())
    if (!isElementwise(user))
      return fail(("its result is read by '" + user->getName().getStringRef() +
                   "', not elementwise: the chunks would be joined in memory")
                      .str());
  Layer layer{matmul, reduce};
  const int64_t rank = result.getRank();
  layer.axis = rank - 2;
  for (int64_t axis = 0; axis < rank - 2; ++axis)
    if (result.getDimSize(axis) > 1) {
      layer.axis = axis;
      break;
    }
  for (int64_t axis = layer.axis + 1; axis < rank - 1; ++axis)
    layer.rowsPerUnit *= result.getDimSize(axis);
  return layer;
}

/// Whether `chunks` equal chunks along the layer's axis hold whole tiles.
bool splits(Layer layer, int64_t chunks) {
  const int64_t extent =
      cast<RankedTensorType>(layer.matmul.getType()).getDimSize(layer.axis);
  return extent % chunks == 0 &&
         (extent / chunks * layer.rowsPerUnit) % kChunkRowMultiple == 0;
}

/// The chunk `index` of `chunks`: a slice of the left operand, its matmul
/// (a clone, with the original's attributes) and its all_reduce.
std::pair<MatmulOp, AllReduceOp> buildChunk(OpBuilder &b, Layer layer,
                                            int64_t index, int64_t chunks) {
  auto lhsType = cast<RankedTensorType>(layer.matmul.getLhs().getType());
  auto resultType = cast<RankedTensorType>(layer.matmul.getType());
  const int64_t extent = resultType.getDimSize(layer.axis) / chunks;
  SmallVector<int64_t> offsets(lhsType.getRank(), 0);
  SmallVector<int64_t> sizes(lhsType.getShape());
  SmallVector<int64_t> strides(lhsType.getRank(), 1);
  offsets[layer.axis] = index * extent;
  sizes[layer.axis] = extent;
  Location loc = layer.matmul.getLoc();
  Value slice = SliceOp::create(
      b, loc, lhsType.clone(sizes), layer.matmul.getLhs(),
      b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
      b.getDenseI64ArrayAttr(strides));
  SmallVector<int64_t> chunkShape(resultType.getShape());
  chunkShape[layer.axis] = extent;
  auto chunkType = resultType.clone(chunkShape);
  auto matmul = cast<MatmulOp>(b.clone(*layer.matmul));
  matmul->setOperand(0, slice);
  matmul.getResult().setType(chunkType);
  auto reduce = cast<AllReduceOp>(b.clone(*layer.reduce));
  reduce->setOperand(0, matmul.getResult());
  reduce.getResult().setType(chunkType);
  return {matmul, reduce};
}

/// Predicted times of a layer run whole and in chunks.
struct WindowPrediction {
  int64_t chunks = 1;
  double wholeSeconds = 0, windowedSeconds = 0;
};

class WindowPlanner {
public:
  WindowPlanner(const opfuse::CostModel &model, int64_t overlapSms)
      : model(model), overlapSms(overlapSms),
        setAside(withSmsSetAside(model.target(), overlapSms)) {}

  /// The tile model's time of the GEMM kernel `matmul` on `target` (its
  /// fastest tiling, with its waves). It ranks tilings and is not a
  /// latency (docs/cost-model.md): only its ratios are used.
  static std::optional<double> tileSeconds(Operation *matmul,
                                           const opfuse::GpuTarget &target) {
    std::vector<opfuse::TilingEstimate> ranked =
        opfuse::rankMatmulTilings(matmul, target.chip, target);
    if (ranked.empty() || ranked.front().seconds <= 0)
      return std::nullopt;
    return ranked.front().seconds;
  }

  /// The prediction of `chunks` chunks of `layer`. The whole GEMM and the
  /// all_reduce are the roofline's, as the report prices them; a chunk's
  /// GEMM is the whole one's work scaled by what the tile model says a
  /// chunk on the SMs left costs against the whole on all of them, which
  /// carries the waves a smaller grid loses. The chunk is built beside the
  /// layer and erased again: the tile model prices ops, not shapes.
  std::optional<WindowPrediction> predict(Layer layer, int64_t chunks) const {
    std::optional<double> wholeTiles =
        tileSeconds(layer.matmul, model.target());
    if (!wholeTiles)
      return std::nullopt;
    const opfuse::Prediction gemm =
        model.predict(model.work(layer.matmul.getOperation()));
    const opfuse::Prediction comm =
        model.predict(model.work(layer.reduce.getOperation()));
    WindowPrediction prediction;
    prediction.chunks = chunks;
    prediction.wholeSeconds = gemm.seconds() + comm.seconds();

    OpBuilder b(layer.matmul);
    auto [matmul, reduce] = buildChunk(b, layer, 0, chunks);
    Operation *slice = matmul.getLhs().getDefiningOp();
    std::optional<double> chunkTiles = tileSeconds(matmul, setAside);
    reduce->erase();
    matmul->erase();
    slice->erase();
    if (!chunkTiles)
      return std::nullopt;
    const double gemmChunk =
        (gemm.seconds() - gemm.launchSeconds) * *chunkTiles / *wholeTiles +
        gemm.launchSeconds;
    const double commChunk =
        (comm.seconds() - comm.launchSeconds) / chunks + comm.launchSeconds;
    std::vector<opfuse::ScheduledStep> steps;
    for (int64_t i = 0; i < chunks; ++i) {
      steps.push_back({gemmChunk, /*beside=*/false, /*joins=*/false, {}});
      steps.push_back(
          {commChunk, /*beside=*/true, /*joins=*/false, {steps.size() - 1}});
    }
    prediction.windowedSeconds = opfuse::scheduleSeconds(steps);
    return prediction;
  }

  int64_t sms() const { return overlapSms; }

private:
  const opfuse::CostModel &model;
  int64_t overlapSms;
  /// The target with the SMs left to NCCL set aside.
  opfuse::GpuTarget setAside;
};

/// Rewrites `layer` into `chunks` chunks joined by a concat.
void window(Layer layer, int64_t chunks, int64_t overlapSms) {
  OpBuilder b(layer.reduce);
  FuseDialect &dialect = getFuseDialect(b.getContext());
  IntegerAttr sms = b.getI64IntegerAttr(overlapSms);
  SmallVector<Value> reduced;
  for (int64_t i = 0; i < chunks; ++i) {
    auto [matmul, reduce] = buildChunk(b, layer, i, chunks);
    dialect.getOverlapSmsAttrHelper().setAttr(matmul, sms);
    dialect.getOverlapSmsAttrHelper().setAttr(reduce, sms);
    reduced.push_back(reduce.getResult());
  }
  Value joined =
      ConcatOp::create(b, layer.reduce.getLoc(), layer.reduce.getType(),
                       reduced, b.getI64IntegerAttr(layer.axis));
  layer.reduce.getResult().replaceAllUsesWith(joined);
  layer.reduce->erase();
  layer.matmul->erase();
}

struct FuseWindowCollectivesPass
    : public opfuse::fuse::impl::FuseWindowCollectivesBase<
          FuseWindowCollectivesPass> {
  using FuseWindowCollectivesBase::FuseWindowCollectivesBase;
  void runOnOperation() override;
};

} // namespace

void FuseWindowCollectivesPass::runOnOperation() {
  func::FuncOp func = getOperation();
  const int64_t chunkCount = chunks, sms = overlapSms;
  if (chunkCount != 0 && !llvm::is_contained(kChunkCounts, chunkCount)) {
    func.emitError("fuse-window-collectives: chunks=")
        << chunkCount
        << ": expected 0 (the cost model chooses), 2, 3, 4, 6 or 8";
    return signalPassFailure();
  }
  if (sms < 1 || sms > kMaxOverlapSms) {
    func.emitError("fuse-window-collectives: overlap-sms=")
        << sms << ": expected 1 to " << kMaxOverlapSms;
    return signalPassFailure();
  }
  const opfuse::CostModel model(getTarget(func));
  // A target too small to spare the SMs keeps its layers whole when the
  // cost model chooses; a forced chunk count cannot be honoured.
  const bool noSmsLeft = sms >= model.target().smCount;
  const std::string noSmsWhy =
      llvm::formatv("overlap-sms={0} leaves no SM of {1}'s {2} to the GEMM",
                    sms, model.target().name, model.target().smCount)
          .str();
  const WindowPlanner planner(model, sms);
  SmallVector<AllReduceOp> reduces(func.getOps<AllReduceOp>());
  for (AllReduceOp reduce : reduces) {
    std::string why;
    FailureOr<Layer> layer = matchLayer(reduce, why);
    auto missed = [&](const Twine &reason) {
      if (explain)
        explainAt(reduce, kPass, ExplainKind::Missed, "not-windowed",
                  "left whole: " + reason);
    };
    if (failed(layer)) {
      // Only an all_reduce of a matmul is a candidate worth a remark.
      if (reduce.getInput().getDefiningOp<MatmulOp>() ||
          reduce.getDevices() <= 1)
        missed(why);
      continue;
    }
    if (noSmsLeft) {
      if (chunkCount != 0) {
        reduce.emitError("fuse-window-collectives: ") << noSmsWhy;
        return signalPassFailure();
      }
      missed(noSmsWhy);
      continue;
    }
    std::optional<WindowPrediction> best;
    for (int64_t count : kChunkCounts) {
      if ((chunkCount != 0 && count != chunkCount) || !splits(*layer, count))
        continue;
      std::optional<WindowPrediction> prediction =
          planner.predict(*layer, count);
      if (prediction &&
          (!best || prediction->windowedSeconds < best->windowedSeconds))
        best = prediction;
    }
    if (!best) {
      missed(llvm::formatv("no chunk count{0} gives equal chunks of whole "
                           "{1}-row tiles",
                           chunkCount ? " " + std::to_string(chunkCount) : "",
                           kChunkRowMultiple)
                 .str());
      continue;
    }
    const std::string figures = llvm::formatv(
        "{0} chunks predicted at {1:F2} us, {2:F2} us whole", best->chunks,
        best->windowedSeconds * 1e6, best->wholeSeconds * 1e6);
    if (chunkCount == 0 &&
        best->windowedSeconds > best->wholeSeconds * (1 - kMinGain)) {
      missed("no gain predicted: " + figures);
      continue;
    }
    if (explain)
      explainAt(reduce, kPass, ExplainKind::Passed, "windowed",
                llvm::formatv("{0}, the GEMMs leaving {1} SMs to NCCL", figures,
                              planner.sms())
                    .str());
    window(*layer, best->chunks, planner.sms());
    opfuse::addPassStatistic(kPass, windowsFormed);
  }
}
