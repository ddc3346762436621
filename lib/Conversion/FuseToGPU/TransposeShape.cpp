//===- TransposeShape.cpp - Which transposes run tiled, and how -----------===//
//
// A group is one tiled transpose when it holds exactly one transpose that
// moves the innermost dimension, elementwise ops and splat constants
// around it, and nothing else. Its tile is 64 x 64 (32 x 32 for 8-byte
// values); its phases read and write 16-byte vectors where the rows are
// whole vectors. Two layouts replace the padded tile where they measured
// faster on the H200 (docs/benchmarks.md): skewed tiles where the output's
// rows do not start on 32-byte sectors, and 4 x 4 register blocks where
// both phases' rows are whole 4-element vectors of values of at most 4
// bytes (a 4-byte tile).
//
//===----------------------------------------------------------------------===//

#include "TransposeShape.h"

#include "KernelBuilder.h"
#include "ScalarOps.h"

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

/// The shortest output rows, in tiles, that skewed tiles are used for.
constexpr int64_t kSkewMinTiles = 4;
/// The smallest grid, in tiles an SM, that skewed tiles are used for.
constexpr int64_t kSkewMinTilesPerSm = 4;

int64_t widestBytes(ArrayRef<Type> types) {
  int64_t widest = 1;
  for (Type type : types)
    widest =
        std::max(widest, getElementByteSize(getStorageType(
                             cast<RankedTensorType>(type).getElementType())));
  return widest;
}

/// Elements of a 32-byte sector of the output, when the output's rows are
/// to be written in skewed, sector-aligned segments: its rows do not start
/// on sectors and are at least kSkewMinTiles tiles long, the grid has at
/// least kSkewMinTilesPerSm tiles for each of `smCount` SMs, every output
/// (`stored`) has one element width of 4 or 8 bytes, and the epilogue reads
/// nothing but the tile (an input read at a skewed index could not be read as
/// aligned vectors). 0 otherwise.
int64_t sectorSkew(const TransposeShape &shape, ArrayRef<Type> stored,
                   bool epilogueReadsInputs, int64_t smCount) {
  if (epilogueReadsInputs || stored.empty())
    return 0;
  const int64_t bytes = widestBytes(stored);
  for (Type type : stored)
    if (widestBytes({type}) != bytes)
      return 0;
  // 2-byte outputs stay straight: skewed, a bf16 4099 x 3001 transpose ran
  // 1.6% slower and an f16 77 x 4099 one 13% (their input rows are read
  // element by element either way; H200, docs/benchmarks.md).
  if (bytes != 4 && bytes != 8)
    return 0;
  const int64_t sector = 32 / bytes;
  const int64_t rowLength = shape.input().getDimSize(shape.across);
  if (rowLength % sector == 0 || shape.tile % sector != 0)
    return 0;
  // Short rows stay straight too: each has two segments that cross its
  // ends, stored lane by lane, and a sector's worth of tile rows more to
  // read. Rows of 33 and 129 f32 ran 16% and 4.5% slower skewed, rows of
  // 999 and more level or faster; four tiles is the line between.
  if (rowLength < kSkewMinTiles * shape.tile)
    return 0;
  // Small grids stay straight: a skewed tile reads a sector's worth of rows
  // more, which costs where one block's latency sets the time. Grids of 611
  // tiles and more were never slower skewed (to 23% faster), smaller ones
  // 8.8% slower to 6.5% faster.
  TransposeShape skewed = shape;
  skewed.skew = sector;
  if (skewed.batch() * skewed.tilesInner() * skewed.tilesAcross() <
      kSkewMinTilesPerSm * smCount)
    return 0;
  return sector;
}

} // namespace

/// The transpose group `ops` (with `outputs` used outside) forms, if it is
/// one this emitter runs: exactly one transpose, moving the innermost
/// dimension, of floats or 32/64-bit integers; every other op elementwise
/// or a splat constant; prologue values used only by the prologue and the
/// transpose; outputs of the transpose's result shape.
std::optional<TransposeShape> analyzeTranspose(ArrayRef<Operation *> ops,
                                               ArrayRef<Value> outputs,
                                               int64_t smCount) {
  TransposeOp transpose;
  for (Operation *op : ops) {
    if (auto t = dyn_cast<TransposeOp>(op)) {
      if (transpose)
        return std::nullopt;
      transpose = t;
    } else if (!isElementwise(op) && !isSplatConstant(op)) {
      return std::nullopt;
    }
  }
  if (!transpose)
    return std::nullopt;
  RankedTensorType input = transpose.getInput().getType();
  const int64_t rank = input.getRank();
  ArrayRef<int64_t> perm = transpose.getPermutation();
  if (rank < 2 || perm.back() == rank - 1)
    return std::nullopt;
  Type element = input.getElementType();
  if (!isa<FloatType>(element) && !element.isInteger(32) &&
      !element.isInteger(64))
    return std::nullopt;
  // The prologue: what the transpose's operand is computed from.
  llvm::SetVector<Operation *> prologue;
  SmallVector<Value> work = {transpose.getInput()};
  DenseSet<Operation *> members(ops.begin(), ops.end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !members.count(def) || !prologue.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  for (Operation *op : prologue)
    for (Operation *user : op->getResult(0).getUsers())
      if (user != transpose && !prologue.contains(user) && !isSplatConstant(op))
        return std::nullopt;
  RankedTensorType result = transpose.getType();
  for (Value output : outputs) {
    if (output.getDefiningOp() && prologue.contains(output.getDefiningOp()) &&
        !isSplatConstant(output.getDefiningOp()))
      return std::nullopt;
    if (cast<RankedTensorType>(output.getType()).getShape() !=
        result.getShape())
      return std::nullopt;
  }

  TransposeShape shape;
  shape.transpose = transpose;
  shape.inner = rank - 1;
  shape.across = perm.back();
  for (int64_t d = 0; d < rank; ++d)
    if (d != shape.inner && d != shape.across)
      shape.batchDims.push_back(d);
  const int64_t bytes = widestBytes({input});
  // 64 x 64 tiles of 2- and 4-byte values: each thread keeps two to four
  // 16-byte loads in flight, where 32 x 32 f32 tiles left one and reached
  // 88% of a copy at 8192^2 (95% with 64; H200, 2026-12-01). The tile is
  // held in the compute type, so 8-byte values keep 32 (33 KB of shared
  // memory otherwise).
  shape.tile = bytes <= 4 ? 64 : 32;
  // Vectors of 16 bytes of the widest value read in each phase.
  SmallVector<Type> read = {input}, written = {result};
  bool epilogueReadsInputs = false;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp() || !members.count(operand.getDefiningOp())) {
        const bool prologueSide = prologue.contains(op) || op == transpose;
        (prologueSide ? read : written).push_back(operand.getType());
        epilogueReadsInputs |= !prologueSide;
      }
  for (Value output : outputs)
    written.push_back(output.getType());
  shape.vecIn = std::min<int64_t>(16 / widestBytes(read), shape.tile);
  shape.vecOut = std::min<int64_t>(16 / widestBytes(written), shape.tile);
  if (input.getDimSize(shape.inner) % shape.vecIn != 0)
    shape.vecIn = 1;
  shape.skew =
      sectorSkew(shape, llvm::to_vector(ValueRange(outputs).getTypes()),
                 epilogueReadsInputs, smCount);
  if (!shape.skew && input.getDimSize(shape.across) % shape.vecOut != 0)
    shape.vecOut = 1;
  // A padded tile costs a 4-byte shared-memory store and a load for each
  // element moved (ncu: warps waiting on the MIO queue); 4 x 4 blocks cost
  // one 16-byte store and one load for four, 1-4% faster for f32 (H200,
  // docs/benchmarks.md). Narrower values move as 4-lane vectors too (8
  // bytes of bf16): their tile holds f32 all the same.
  const int64_t widestMoved = std::max(widestBytes(read), widestBytes(written));
  shape.blocked = !shape.skew && shape.tile == 64 && widestMoved <= 4 &&
                  input.getDimSize(shape.inner) % 4 == 0 &&
                  input.getDimSize(shape.across) % 4 == 0 &&
                  getElementByteSize(getComputeType(element)) == 4;
  if (shape.blocked)
    shape.vecIn = shape.vecOut = 4;
  return shape;
}

std::optional<TransposeShape> analyzeTransposeGroup(GroupOp group,
                                                    const GpuTarget &target) {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return analyzeTranspose(ops,
                          llvm::to_vector(body.getTerminator()->getOperands()),
                          target.smCount);
}

} // namespace opfuse
