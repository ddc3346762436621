//===- AttentionProblem.cpp - What an attention group computes ------------===//
//
// The attention op of a group, where its q, k and v lie (group inputs read
// through the head-splitting views inside the group, as strides), how its
// mask broadcasts, and the tiling and launch of its kernel.
//
//===----------------------------------------------------------------------===//

#include "AttentionEmission.h"

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/SequenceConcat.h"
#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include "llvm/ADT/StringExtras.h"

#include <numeric>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::attention {

std::optional<AttentionTiling> parseAttentionTiling(StringRef text,
                                                    std::string &error) {
  StringRef rest = text;
  const bool tma = rest.consume_front("tma:");
  const bool warpgroup = tma || rest.consume_front("wgmma:");
  auto [shape, splitPart] = rest.split('/');
  int64_t keySplits = 1;
  const bool persistent = splitPart == "persistent";
  if (persistent && !tma) {
    error = "'" + text.str() +
            "': only tma tiles persist (e.g. tma:192x128/persistent)";
    return std::nullopt;
  }
  if (!persistent && (!splitPart.empty() || rest.ends_with("/"))) {
    if (!splitPart.consume_front("k") ||
        splitPart.getAsInteger(10, keySplits) || keySplits < 1 ||
        keySplits > kMaxKeySplits) {
      error = "'" + text.str() +
              "': the key split must be kS with S from 1 to " +
              std::to_string(kMaxKeySplits) + " (e.g. wgmma:64x64/k4)";
      return std::nullopt;
    }
  }
  auto [m, n] = shape.split('x');
  int64_t blockM = 0, blockN = 0;
  if (m.getAsInteger(10, blockM) || n.getAsInteger(10, blockN)) {
    error = "'" + text.str() +
            "': expected auto or [wgmma:|tma:]BMxBN[/kS|/persistent] (e.g. "
            "128x64)";
    return std::nullopt;
  }
  if (blockM != 64 && blockM != 128 && !(tma && blockM == kThreeConsumerRows)) {
    error = "'" + text.str() +
            "': BM (query rows per block) must be 64 or 128 (192 with tma "
            "tiles: three consumer warpgroups)";
    return std::nullopt;
  }
  if (blockN != 32 && blockN != 64 && blockN != 128) {
    error = "'" + text.str() + "': BN (keys per step) must be 32, 64 or 128";
    return std::nullopt;
  }
  if (warpgroup && blockN == 32) {
    error = "'" + text.str() + "': wgmma and tma tiles take BN 64 or 128";
    return std::nullopt;
  }
  AttentionTiling tiling;
  tiling.blockM = blockM;
  tiling.blockN = blockN;
  tiling.warpgroup = warpgroup;
  tiling.tma = tma;
  tiling.keySplits = keySplits;
  tiling.persistent = persistent;
  // A warpgroup (4 warps) per 64 query rows.
  if (warpgroup)
    tiling.setWarpgroupRows(blockM);
  return tiling;
}

/// The gcd of every row start of a view, in elements: of the offset and
/// the strides of the dimensions above the row. A dimension of one element (a
/// decode step's one query or key) moves no row, whatever stride the views give
/// it.
static int64_t rowAlignment(ArrayRef<int64_t> shape, int64_t offset,
                            ArrayRef<int64_t> strides) {
  int64_t alignment = offset;
  for (auto [size, stride] : llvm::zip(shape.drop_back(), strides.drop_back()))
    if (size != 1)
      alignment = std::gcd(alignment, stride);
  return alignment;
}

/// A piece of an attention operand as the views inside the kernel read it.
struct ViewedPiece {
  StridedView view;
  /// The shape of the value viewed as [B, H, S, D].
  SmallVector<int64_t> shape;
  int64_t firstRow = 0, rows = 0;
};

/// The pieces `operand` is read from: one strided view, or one per input of
/// a concat along the sequence (getSequenceConcat).
static std::optional<SmallVector<ViewedPiece, 2>>
piecesOf(Value operand, function_ref<bool(Operation *)> member,
         std::string &why) {
  auto shapeOf = [](Value value) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    return SmallVector<int64_t>(shape.begin(), shape.end());
  };
  SmallVector<ViewedPiece, 2> result;
  if (ConcatOp concat = getSequenceConcat(operand, member)) {
    std::optional<SmallVector<SequencePiece>> pieces =
        getSequencePieces(concat, member, why);
    if (!pieces)
      return std::nullopt;
    for (const SequencePiece &piece : *pieces)
      result.push_back(
          {piece.view, shapeOf(piece.input), piece.firstRow, piece.rows});
    return result;
  }
  std::optional<StridedView> view = getStridedView(
      operand, [&](Operation *op) { return member(op) && isStridedViewOp(op); },
      why);
  if (!view)
    return std::nullopt;
  SmallVector<int64_t> shape = shapeOf(operand);
  const int64_t rows = shape[shape.size() - 2];
  result.push_back({*view, std::move(shape), 0, rows});
  return result;
}

std::optional<std::string> checkAttentionOps(ArrayRef<Operation *> ops) {
  std::string why;
  Operation *contraction = analyzeGemmKernel(ops, why);
  if (!contraction)
    return why;
  auto attention = dyn_cast<AttentionOp>(contraction);
  if (!attention)
    return std::string("the kernel holds no attention");
  if (std::optional<std::string> unsupported = whyNoAttentionKernel(attention))
    return unsupported;
  // Each of q, k and v is copied in chunks of 4 bytes or more along the
  // head dimension.
  llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
  auto isMember = [&](Operation *op) { return members.contains(op); };
  for (Value operand : {attention.getQ(), attention.getK(), attention.getV()}) {
    std::optional<SmallVector<ViewedPiece, 2>> pieces =
        piecesOf(operand, isMember, why);
    if (!pieces)
      return why;
    for (const ViewedPiece &piece : *pieces)
      if (rowAlignment(piece.shape, piece.view.offset, piece.view.strides) %
              2 !=
          0)
        return (operand.getDefiningOp() ? describeOp(operand.getDefiningOp())
                                        : std::string("an input")) +
               " places rows of " + describeOp(attention) +
               "'s operand at odd element offsets; the attention kernel "
               "copies at least two elements at a time";
  }
  return std::nullopt;
}

/// The operand `value` of the attention in `body`: the group inputs it is
/// read from and their strides, through the views (and a concat along the
/// sequence) that produce it inside the group.
static FailureOr<AttentionOperand> operandOf(AttentionOp op, Value value,
                                             Block &body) {
  std::string why;
  std::optional<SmallVector<ViewedPiece, 2>> pieces = piecesOf(
      value, [&](Operation *o) { return o->getBlock() == &body; }, why);
  if (!pieces)
    return op.emitError("the attention kernel cannot read this operand in "
                        "place: ")
           << why;
  AttentionOperand result;
  int64_t alignment = cast<RankedTensorType>(value.getType()).getDimSize(3);
  for (const ViewedPiece &viewed : *pieces) {
    auto argument = dyn_cast<BlockArgument>(viewed.view.base);
    if (!argument)
      return op.emitError("the attention kernel reads q, k and v from "
                          "memory; they must be inputs of the group");
    if (viewed.view.strides.back() != 1)
      return op.emitError("the attention kernel reads the head dimension "
                          "contiguously");
    AttentionPiece piece;
    piece.input = argument.getArgNumber();
    piece.offset = viewed.view.offset;
    piece.strides.assign(viewed.view.strides.begin(),
                         viewed.view.strides.end());
    piece.firstRow = viewed.firstRow;
    piece.rows = viewed.rows;
    result.pieces.push_back(std::move(piece));
    alignment =
        std::gcd(alignment, rowAlignment(viewed.shape, viewed.view.offset,
                                         viewed.view.strides));
  }
  // Even: checkAttentionOps refused odd offsets, and D is a multiple of 16.
  result.chunk = alignment % 8 == 0 ? 8 : alignment % 4 == 0 ? 4 : 2;
  return result;
}

FailureOr<AttentionProblem> analyzeAttentionProblem(GroupOp group) {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  if (std::optional<std::string> why = checkAttentionOps(ops))
    return group.emitError("not one attention kernel: ") << *why;
  AttentionProblem p;
  for (Operation *op : ops)
    if (auto attention = dyn_cast<AttentionOp>(op))
      p.op = attention;
  AttentionOp op = p.op;
  RankedTensorType q = op.getQ().getType(), k = op.getK().getType(),
                   v = op.getV().getType();
  p.elementType = q.getElementType();
  p.batch = q.getDimSize(0);
  p.heads = q.getDimSize(1);
  p.sq = q.getDimSize(2);
  p.d = q.getDimSize(3);
  p.kvHeads = k.getDimSize(1);
  p.sk = k.getDimSize(2);
  p.dv = v.getDimSize(3);
  p.scale = op.getScale().convertToFloat();
  p.causal = op.getCausal();
  if (FloatAttr softcap = op.getSoftcapAttr())
    p.softcap = softcap.getValueAsDouble();
  for (auto [value, operand] :
       {std::pair{op.getQ(), &p.q}, std::pair{op.getK(), &p.k},
        std::pair{op.getV(), &p.v}}) {
    FailureOr<AttentionOperand> analyzed = operandOf(op, value, body);
    if (failed(analyzed))
      return failure();
    *operand = *analyzed;
  }
  if (Value mask = op.getMask()) {
    auto argument = dyn_cast<BlockArgument>(mask);
    if (!argument)
      return op.emitError("the attention kernel reads its mask from memory; "
                          "it must be an input of the group");
    p.maskInput = argument.getArgNumber();
    SmallVector<int64_t> space = {p.batch, p.heads, p.sq, p.sk};
    FailureOr<InputAccess> access =
        analyzeInput(group, cast<RankedTensorType>(mask.getType()), space,
                     argument.getArgNumber());
    if (failed(access))
      return failure();
    p.mask = *access;
  }
  return p;
}

std::optional<std::string>
whyNoWarpgroupAttention(const AttentionProblem &problem) {
  if (problem.d % 64 != 0 || problem.dv % 64 != 0)
    return std::string("wgmma attention tiles take head dimensions that "
                       "are multiples of 64");
  return std::nullopt;
}

/// The tensor map of `piece` (`heads` heads, rows of `width` elements)
/// with boxes of 64 x `boxRows`, or nothing where TMA cannot address it.
static std::optional<TensorMapSpec> tensorMapOf(const AttentionProblem &problem,
                                                const AttentionPiece &piece,
                                                int64_t heads, int64_t width,
                                                int64_t boxRows) {
  const int64_t bytes = getElementByteSize(problem.elementType);
  TensorMapSpec map;
  map.input = piece.input;
  map.offset = piece.offset * bytes;
  map.dims = {width, piece.rows};
  map.box = {64, boxRows};
  // One row (a decode step's new key) never steps: its stride, whatever
  // the views made it, is given as a whole row's.
  map.strides = {(piece.rows == 1 ? width : piece.strides[2]) * bytes};
  // Head, then batch: a dimension of one element has no coordinate.
  for (auto [size, stride] : {std::pair{heads, piece.strides[1]},
                              std::pair{problem.batch, piece.strides[0]}}) {
    if (size == 1)
      continue;
    map.dims.push_back(size);
    map.strides.push_back(stride * bytes);
    map.box.push_back(1);
  }
  if (map.offset % 16 != 0 ||
      llvm::any_of(map.strides, [](int64_t s) { return s <= 0 || s % 16; }))
    return std::nullopt;
  return map;
}

std::optional<std::string> whyNoKeySplits(const AttentionProblem &problem,
                                          const AttentionTiling &tiling) {
  if (!tiling.tma || tiling.keySplits == 1)
    return std::nullopt;
  // The TMA-fed kernel's producer and consumers start on their first key
  // tile unconditionally.
  if (problem.causal)
    return std::string("a TMA-fed kernel splits the keys only without a "
                       "causal mask (which may leave a split no key); use "
                       "wgmma: or mma.sync tiles");
  const int64_t keyTiles = llvm::divideCeil(problem.sk, tiling.blockN);
  if (tiling.keySplits > keyTiles)
    return std::to_string(tiling.keySplits) + " splits of " +
           std::to_string(keyTiles) + " key tiles of " +
           std::to_string(tiling.blockN) +
           ": a TMA-fed kernel needs a key tile for every split";
  return std::nullopt;
}

std::optional<std::string> whyNoThreeConsumers(const AttentionProblem &problem,
                                               const AttentionTiling &tiling) {
  if (tiling.blockM != kThreeConsumerRows)
    return std::nullopt;
  // 160 registers a thread: the scores and output of wider heads do not
  // fit.
  if (std::max(problem.d, problem.dv) > 64)
    return "192 query rows (three consumer warpgroups) take head "
           "dimensions of 64 or less; this attention's are " +
           std::to_string(problem.d) + " and " + std::to_string(problem.dv);
  // Split keys are for decode steps' single query tiles of 64 rows.
  if (tiling.keySplits > 1)
    return std::string("192 query rows take no key split (/kS splits the "
                       "keys of decode steps' query tiles of 64 rows)");
  return std::nullopt;
}

std::optional<std::string> whyNoPersistence(const AttentionProblem &problem,
                                            const AttentionTiling &tiling) {
  if (!tiling.persistent)
    return std::nullopt;
  // One block an SM is what makes a grid of as many blocks as SMs run at
  // once: the register file given to two or three consumers ensures it.
  if (tiling.consumers() < 2)
    return std::string("persistent blocks take 128 or 192 query rows (two "
                       "or three consumer warpgroups, one block an SM)");
  // No key split: "/persistent" and "/kS" are alternatives of the tiling's
  // syntax, and auto splits only decode steps, before it asks to persist.
  return std::nullopt;
}

int64_t countAttentionPieces(const AttentionProblem &problem) {
  return problem.q.pieces.size() + problem.k.pieces.size() +
         problem.v.pieces.size();
}

SmallVector<TensorMapSpec, 3>
attentionTensorMaps(const AttentionProblem &problem,
                    const AttentionTiling &tiling) {
  SmallVector<TensorMapSpec, 3> maps;
  for (auto [operand, heads, width, boxRows] :
       {std::tuple{&problem.q, problem.heads, problem.d, tiling.blockM},
        std::tuple{&problem.k, problem.kvHeads, problem.d, tiling.blockN},
        std::tuple{&problem.v, problem.kvHeads, problem.dv, tiling.blockN}})
    for (const AttentionPiece &piece : operand->pieces)
      if (std::optional<TensorMapSpec> map =
              tensorMapOf(problem, piece, heads, width, boxRows))
        maps.push_back(*map);
  return maps;
}

std::optional<std::string> whyNoTmaAttention(const AttentionProblem &problem,
                                             int64_t blockN) {
  if (std::optional<std::string> why = whyNoWarpgroupAttention(problem))
    return why;
  AttentionTiling probe;
  probe.blockM = probe.blockN = 64;
  if (static_cast<int64_t>(attentionTensorMaps(problem, probe).size()) !=
      countAttentionPieces(problem))
    return std::string("TMA copies q, k and v only where each starts and "
                       "steps by multiples of 16 bytes");
  // A key tile comes from one piece of a joined K or V.
  for (const AttentionOperand *operand : {&problem.k, &problem.v})
    for (const AttentionPiece &piece : operand->pieces)
      if (piece.firstRow % blockN != 0)
        return "TMA copies a joined K or V tile by tile, and a piece starts "
               "at row " +
               std::to_string(piece.firstRow) + ", not a multiple of " +
               std::to_string(blockN) + " keys";
  return std::nullopt;
}

/// The most K/V stages (2 to 4) that fit in shared memory.
static void chooseStages(const AttentionProblem &problem,
                         AttentionTiling &tiling) {
  for (tiling.stages = 4; tiling.stages > 2; --tiling.stages)
    if (attentionSharedBytes(problem, tiling) <= kMaxSharedBytesPerBlock)
      return;
}

/// Resident blocks of `tiling` per SM: shared memory and threads allow.
static int64_t residentAttentionBlocks(const AttentionProblem &problem,
                                       const AttentionTiling &tiling,
                                       const GpuTarget &target) {
  // As the GEMM's occupancy estimate: 1 KiB of shared memory the driver
  // keeps per block, 2048 threads and 32 blocks an SM.
  return std::min({target.sharedMemoryPerSm /
                       (attentionSharedBytes(problem, tiling) + 1024),
                   2048 / tiling.threads(), int64_t(32)});
}

/// The decode case: 64 queries or fewer per head (one query tile), and
/// too few query tiles to occupy the SMs. Their keys are split among
/// blocks: TMA-fed where it can be and there is no causal mask (each
/// block's deep K/V ring keeps the most bytes in flight), else fed by
/// cp.async (wgmma with 64 keys a step, so that two blocks fit an SM);
/// as many splits per tile as the resident blocks allow while each split
/// keeps two key tiles or more (the next one in flight while one is
/// computed on). Nothing when that is fewer than two. Longer query
/// sequences keep their tiling: their blocks do more work per key.
static std::optional<AttentionTiling>
splitKeysTiling(const AttentionProblem &problem, AttentionTiling tiling,
                const GpuTarget &target) {
  const int64_t queryTiles = countQueryTiles(problem, tiling);
  if (target.smCount <= 0 || problem.sq > 64 || queryTiles >= target.smCount)
    return std::nullopt;
  if (tiling.tma && !problem.causal) {
    chooseStages(problem, tiling);
  } else {
    tiling.tma = false;
    tiling.stages = 2;
    if (tiling.warpgroup)
      tiling.blockN = 64;
  }
  const int64_t resident =
      target.smCount *
      std::max<int64_t>(1, residentAttentionBlocks(problem, tiling, target));
  const int64_t keyTiles = llvm::divideCeil(problem.sk, tiling.blockN);
  const int64_t splits =
      std::min({resident / queryTiles, keyTiles / 2, kMaxKeySplits});
  if (splits < 2)
    return std::nullopt;
  tiling.keySplits = splits;
  return tiling;
}

/// The (batch, head) pairs of a section (AttentionTiling::headsPerSection):
/// without a causal mask every query tile has the same work and one
/// head's tiles together share its K and V best; under one, as many heads
/// as the L2's half holds the K and V of, so the section's longest rows
/// still run first across several heads (a short tail), a divisor of the
/// heads so that every section is whole.
static int64_t chooseHeadsPerSection(const AttentionProblem &problem,
                                     const GpuTarget &target) {
  const int64_t heads = problem.batch * problem.heads;
  if (!problem.causal || target.l2Bytes <= 0)
    return 1;
  // The K and V bytes a query head reads, shared by the heads of a group.
  const int64_t bytes = problem.sk * (problem.d + problem.dv) *
                        getElementByteSize(problem.elementType) *
                        problem.kvHeads / problem.heads;
  int64_t fit = std::clamp<int64_t>(
      target.l2Bytes / 2 / std::max<int64_t>(bytes, 1), 1, heads);
  while (heads % fit != 0)
    --fit;
  return fit;
}

/// The query rows' time of `tiling`, in rows of 128-row tiles: each
/// block's rows times the key tiles it visits, a row of a 192-row tile at
/// kThreeConsumerRowCost of one of 128. Without a causal mask every block
/// does the same work and whole waves of blocks are paid; under one the
/// longest rows run first and the blocks' sum is what counts.
static double attentionRowTime(const AttentionProblem &problem,
                               const AttentionTiling &tiling,
                               const GpuTarget &target) {
  // Measured on the H200 (docs/benchmarks.md): 192-row tiles at head dim
  // 64 took 0.90-0.91 of the time per row of 128-row tiles at 16k tokens.
  constexpr double kThreeConsumerRowCost = 0.9;
  const double rowCost =
      tiling.blockM == kThreeConsumerRows ? kThreeConsumerRowCost : 1.0;
  if (!problem.causal) {
    const int64_t resident =
        target.smCount *
        std::max<int64_t>(1, residentAttentionBlocks(problem, tiling, target));
    const int64_t waves = llvm::divideCeil(countQueryTiles(problem, tiling),
                                           std::max<int64_t>(1, resident));
    return rowCost * waves * tiling.blockM *
           llvm::divideCeil(problem.sk, tiling.blockN);
  }
  return rowCost *
         fuse::AttentionOp::computedKeyTiles(problem.sq, problem.sk,
                                             /*causal=*/true, tiling.blockM,
                                             tiling.blockN) *
         tiling.blockM * problem.batch * problem.heads;
}

/// Whether three consumer warpgroups (192 query rows) beat two at head
/// dims of 64 or less: their softmax has a third warpgroup's products to
/// hide under, but their tiles are coarser (more rows past a ragged
/// sequence or the diagonal, fewer blocks to fill the last wave).
static bool prefersThreeConsumers(const AttentionProblem &problem,
                                  AttentionTiling two,
                                  const GpuTarget &target) {
  if (std::max(problem.d, problem.dv) > 64 || two.blockM != 128)
    return false;
  AttentionTiling three = two;
  three.setWarpgroupRows(kThreeConsumerRows);
  chooseStages(problem, two);
  chooseStages(problem, three);
  return attentionRowTime(problem, three, target) <
         attentionRowTime(problem, two, target);
}

static AttentionTiling chooseTiles(const AttentionProblem &problem,
                                   StringRef option, bool useTma,
                                   const GpuTarget &target) {
  std::string error;
  if (option != "auto")
    if (std::optional<AttentionTiling> tiling =
            parseAttentionTiling(option, error)) {
      if (tiling->tma)
        chooseStages(problem, *tiling);
      return *tiling;
    }
  AttentionTiling tiling;
  tiling.blockM = 128;
  const bool hopper = target.chip == "sm_90" || target.chip == "sm_90a";
  if (hopper && !whyNoWarpgroupAttention(problem)) {
    // wgmma, a warpgroup per 64 rows, fed by a TMA producer where the
    // operands allow it: 128 keys a step. Fed by cp.async, 128 keys for
    // head dim 128 and 64 for 64 (the faster on the H200 for each:
    // docs/benchmarks.md).
    tiling.warpgroup = true;
    tiling.tma = useTma && !whyNoTmaAttention(problem, 128);
    tiling.blockN =
        tiling.tma || std::max(problem.d, problem.dv) > 64 ? 128 : 64;
    tiling.setWarpgroupRows(problem.sq <= 64 ? 64 : 128);
    if (std::optional<AttentionTiling> split =
            splitKeysTiling(problem, tiling, target))
      return *split;
    if (tiling.tma && prefersThreeConsumers(problem, tiling, target))
      tiling.setWarpgroupRows(kThreeConsumerRows);
    tiling.persistent = tiling.tma && tiling.consumers() >= 2 &&
                        persistentAttentionPays(problem.sk, problem.causal,
                                                problem.maskInput.has_value());
    if (tiling.tma)
      chooseStages(problem, tiling);
    return tiling;
  }
  // mma.sync: 32 query rows a warp halve the shared-memory reads of K and
  // V per FLOP; they fit in registers beside the scores only with narrow
  // heads or a narrow key step.
  tiling.blockN = std::max(problem.d, problem.dv) > 64 ? 32 : 64;
  // Few query rows: 16 a warp, so the blocks fill the GPU.
  if (problem.sq <= 64)
    tiling.blockM = 64;
  return splitKeysTiling(problem, tiling, target).value_or(tiling);
}

AttentionTiling chooseAttentionTiling(const AttentionProblem &problem,
                                      StringRef option, bool useTma,
                                      const GpuTarget &target) {
  AttentionTiling tiling = chooseTiles(problem, option, useTma, target);
  tiling.headsPerSection = chooseHeadsPerSection(problem, target);
  // A persistent grid of one block an SM (two or three consumer
  // warpgroups take the whole register file: setmaxnreg), only where the
  // query tiles outnumber the SMs; fewer run one block each anyway.
  if (tiling.persistent && !whyNoPersistence(problem, tiling) &&
      target.smCount > 0 && countQueryTiles(problem, tiling) > target.smCount)
    tiling.persistentBlocks = target.smCount;
  return tiling;
}

int64_t attentionSharedBytes(const AttentionProblem &problem,
                             const AttentionTiling &tiling) {
  const int64_t bytes = getElementByteSize(problem.elementType);
  // With wgmma fed by cp.async, each warpgroup's P tile too; with TMA
  // (P in registers), the mbarriers: Q full, K and V full and empty per
  // stage.
  if (tiling.tma)
    return tiling.blockM * problem.d * bytes +
           tiling.stages * tiling.blockN * (problem.d + problem.dv) * bytes +
           8 * (1 + 4 * tiling.stages + (tiling.persistentBlocks ? 1 : 0));
  return tiling.blockM * problem.d * bytes +
         2 * tiling.blockN * (problem.d + problem.dv) * bytes +
         (tiling.warpgroup ? tiling.blockM * tiling.blockN * bytes : 0);
}

LaunchConfig attentionLaunch(const AttentionProblem &problem,
                             const AttentionTiling &tiling) {
  LaunchConfig config;
  config.block = tiling.threads();
  const int64_t queryTiles = countQueryTiles(problem, tiling);
  config.grid = tiling.persistentBlocks ? tiling.persistentBlocks
                                        : queryTiles * tiling.keySplits;
  config.sharedBytes = attentionSharedBytes(problem, tiling);
  if (tiling.tma)
    config.tensorMaps = attentionTensorMaps(problem, tiling);
  if (tiling.keySplits > 1) {
    // Per block: its rows' partial outputs, then per row a maximum and a
    // sum (AttentionKeySplits.cpp).
    config.splits = tiling.keySplits;
    config.splitCounters = queryTiles;
    config.workspaceBytes =
        config.grid * splitRowsPerBlock(problem, tiling) * (problem.dv + 2) * 4;
  }
  return config;
}

int64_t countQueryTiles(const AttentionProblem &problem,
                        const AttentionTiling &tiling) {
  return problem.batch * problem.heads *
         llvm::divideCeil(problem.sq, tiling.blockM);
}

int64_t splitRowsPerBlock(const AttentionProblem &problem,
                          const AttentionTiling &tiling) {
  return std::min(tiling.blockM, problem.sq);
}

} // namespace opfuse::attention
