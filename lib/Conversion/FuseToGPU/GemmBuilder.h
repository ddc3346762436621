//===- GemmBuilder.h - Copies and MMAs of the GEMM kernels ------*- C++ -*-===//
//
// What the GEMM kernels are built from: the operands as the kernel copies
// them, the swizzled shared-memory layouts, cp.async copies of a K slice,
// ldmatrix and mma.sync fragments, and the main loops of the warpgroup-MMA
// kernel and of f32 operands.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMBUILDER_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMBUILDER_H

#include "KernelBuilder.h"

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"
#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <numeric>
#include <optional>

namespace opfuse::gemm {

// The builder's code reads as MLIR code: the names it uses, declared one
// by one (no using-directive in a header).
using llvm::ArrayRef;
using llvm::SmallVector;
using mlir::Location;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using mlir::VectorType;
namespace arith = mlir::arith;
namespace LLVM = mlir::LLVM;
namespace NVVM = mlir::NVVM;
namespace scf = mlir::scf;

/// One GEMM operand (A or B) as the kernel copies it: per batch element a
/// row-major matrix whose rows run along K (`kContiguous`) or along M/N.
struct Operand {
  Value pointer;         // the kernel argument
  int64_t mn = 0, k = 0; // M (for A) or N (for B), and K
  int64_t tileMN = 0;    // blockM or blockN
  bool kContiguous = false;
  int64_t chunk = 8;       // elements per copy: 8, 4, 2 (cp.async) or 1
  int64_t stageOffset = 0; // bytes from the start of a stage
  SmallVector<int64_t> batchStrides; // per output batch dimension
  // Read through a strided view (StridedView.h): rows of the contiguous
  // matrix are `rowStride` elements apart (0: leading(), packed) and the
  // first element is `offset` elements into the buffer.
  int64_t rowStride = 0;
  int64_t offset = 0;
  /// For a conv2d's input (the implicit GEMM's A): element (m, k) is input
  /// pixel (n, oh * sh - pt + kh * dh, ow * sw - pl + kw * dw) channel c
  /// (of the batch's group: the batch offset adds its first channel), with
  /// m = (n, oh, ow) and k = (kh, kw, c), c < `c`; zero outside the image.
  /// A pixel's channels are `pitch` apart (all groups'). With an input
  /// dilation (lh, lw) the pixel's coordinates are in the dilated input:
  /// zero unless they are multiples of it, else pixel (n, y / lh, x / lw).
  struct Im2Col {
    int64_t h, w, c, pitch, kw, oh, ow, sh, sw, dh, dw, pt, pl, lh = 1, lw = 1;
  };
  std::optional<Im2Col> im2col;

  int64_t tileRows(int64_t blockK) const {
    return kContiguous ? tileMN : blockK;
  }
  int64_t tileCols(int64_t blockK) const {
    return kContiguous ? blockK : tileMN;
  }
  int64_t leading() const { return kContiguous ? k : mn; }
  int64_t rowPitch() const { return rowStride ? rowStride : leading(); }
  /// What every address of the operand, and its contiguous extent, is a
  /// multiple of, in elements from the buffer's start: copies may be at
  /// most this wide (and never straddle the end of a row).
  int64_t alignment() const {
    int64_t a = std::gcd(std::gcd(leading(), rowPitch()), offset);
    for (int64_t stride : batchStrides)
      a = std::gcd(a, stride);
    return a;
  }
};

/// Builds the body of one GEMM kernel.
class GemmBuilder {
public:
  GemmBuilder(OpBuilder &b, Location loc, KernelBuilder &kb,
              const MatmulTiling &tiling, Type elementType)
      : b(b), loc(loc), kb(kb), t(tiling), elementType(elementType),
        elementBytes(fuse::getElementByteSize(elementType)) {}

  Value i32(int64_t v) { return kb.i32(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divu(Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, x, i32(d));
  }
  Value remu(Value x, int64_t d) {
    return arith::RemUIOp::create(b, loc, x, i32(d));
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value ne(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
  }
  /// An index (a loop variable, a thread id) as i32.
  Value toI32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  }
  /// A value of the kernel's index type (i32 or i64) as i32.
  Value fromIndexType(Value v) {
    if (v.getType().isInteger(32))
      return v;
    return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
  }
  Value toIndexType(Value v32) {
    if (kb.getIndexType().isInteger(32))
      return v32;
    return arith::ExtUIOp::create(b, loc, kb.getIndexType(), v32);
  }

  /// The byte offset in shared memory of element (row, col) of a tile with
  /// `cols` 16-bit columns. 16-byte chunks are XOR-swizzled inside their
  /// 128-byte line by the row (rows of 128 bytes or more) or by the line
  /// (shorter rows, several to a line), which spreads eight consecutive
  /// rows at one column over all eight bank groups.
  Value swizzled(Value row, Value col, int64_t cols) {
    const int64_t perChunk = 16 / elementBytes;
    const int64_t chunksPerRow = cols / perChunk;
    Value chunk = add(mul(row, i32(chunksPerRow)), divu(col, perChunk));
    Value key = chunksPerRow >= 8 ? remu(row, 8) : remu(divu(chunk, 8), 8);
    Value physical = arith::XOrIOp::create(b, loc, chunk, key);
    return add(mul(physical, i32(16)),
               mul(remu(col, perChunk), i32(elementBytes)));
  }

  /// The byte offset of element (row, col) of `op`'s tile in a stage. The
  /// mma.sync kernel stores the tile row-major (`swizzled`). The wgmma
  /// kernel stores it in the 128-byte-swizzle layout its descriptors
  /// describe: K-contiguous tiles as rows of 64 elements (128 bytes), chunk
  /// XOR row % 8; M/N-contiguous tiles as panels of 64 M/N elements, each
  /// BK rows of 128 bytes with the same swizzle, panel after panel.
  Value tileOffset(const Operand &op, Value row, Value col) {
    const int64_t cols = op.tileCols(t.blockK);
    if (t.instruction == MmaInstruction::Sync || op.kContiguous)
      return swizzled(row, col, cols);
    Value panel = divu(col, 64);
    return add(mul(panel, i32(t.blockK * 128)),
               swizzled(row, remu(col, 64), 64));
  }

  /// Whether this block is the last of `splits` to count itself done on
  /// the i32 `counter` (split-K GEMMs, split-key attention): thread 0
  /// (`thread`) adds one, acq_rel, and hands the count before it to the
  /// block through `flag` in shared memory, between two calls of `sync`
  /// (a barrier of the threads taking part). The caller has fenced its
  /// partials GPU-wide first.
  Value isLastSplit(Value counter, Value flag, Value thread, int64_t splits,
                    llvm::function_ref<void()> sync) {
    sync();
    {
      auto count = scf::IfOp::create(b, loc, eq(thread, i32(0)),
                                     /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&count.getThenRegion().front());
      Value before =
          LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter,
                                    i32(1), LLVM::AtomicOrdering::acq_rel);
      LLVM::StoreOp::create(b, loc, before, flag, 4);
    }
    sync();
    Value before = LLVM::LoadOp::create(b, loc, b.getI32Type(), flag, 4);
    return eq(before, i32(splits - 1));
  }

  /// Orders this thread's shared-memory writes (cp.async copies landed, a
  /// prologue's stores) before the tensor cores' reads through the async
  /// proxy (wgmma); a barrier then publishes them to the other threads.
  void fenceAsyncProxy() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  /// setmaxnreg for the calling warpgroup. A warp-specialised block of
  /// three warpgroups moves its registers from the producer (which needs
  /// few) to the two MMA warpgroups: 40 + 2 x 232 per thread is what 168
  /// for all three (65536 / 384, rounded to 8) add up to.
  static constexpr int32_t kProducerRegisters = 40, kConsumerRegisters = 232;
  void setMaxRegisters(int32_t count, NVVM::SetMaxRegisterAction action) {
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(count),
        NVVM::SetMaxRegisterActionAttr::get(b.getContext(), action));
  }

  Value sharedPointer(Value base, Value byteOffset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{byteOffset});
  }

  /// Issues the copies of K-slice `slice` (i32) of `op` into the stage at
  /// byte offset `stageBase` (i32).
  void copySlice(const Operand &op, Value slice, Value stageBase, Value thread,
                 Value tileStart, Value batchOffset, Value smem) {
    const int64_t rows = op.tileRows(t.blockK), cols = op.tileCols(t.blockK);
    const int64_t chunksPerRow = cols / op.chunk;
    const int64_t chunks = rows * chunksPerRow;
    const int64_t threads = t.threads();
    Value kStart = mul(slice, i32(t.blockK));
    const int64_t bytes = op.chunk * elementBytes;
    for (int64_t first = 0; first < chunks; first += threads) {
      Value q = add(thread, i32(first));
      Value inTile = first + threads <= chunks ? Value() : lt(q, i32(chunks));
      Value row = divu(q, chunksPerRow);
      Value col = mul(remu(q, chunksPerRow), i32(op.chunk));
      Value mnIndex = add(tileStart, op.kContiguous ? row : col);
      Value kIndex = add(kStart, op.kContiguous ? col : row);
      Value valid = arith::AndIOp::create(b, loc, lt(mnIndex, i32(op.mn)),
                                          lt(kIndex, i32(op.k)));
      if (inTile)
        valid = arith::AndIOp::create(b, loc, valid, inTile);
      Value offset;
      if (op.im2col) {
        // A chunk is `chunk` channels of one filter tap: a group's
        // channels are a multiple of the chunk, so it never straddles two
        // taps.
        const Operand::Im2Col &g = *op.im2col;
        Value pixel = mnIndex, c = remu(kIndex, g.c);
        Value ow = remu(pixel, g.ow), oh = remu(divu(pixel, g.ow), g.oh);
        Value n = divu(pixel, g.ow * g.oh);
        Value tap = divu(kIndex, g.c);
        Value kh = divu(tap, g.kw), kw = remu(tap, g.kw);
        // Signed: padding makes the first rows and columns negative.
        Value ih = arith::SubIOp::create(
            b, loc, add(mul(oh, i32(g.sh)), mul(kh, i32(g.dh))), i32(g.pt));
        Value iw = arith::SubIOp::create(
            b, loc, add(mul(ow, i32(g.sw)), mul(kw, i32(g.dw))), i32(g.pl));
        auto inside = [&](Value v, int64_t size) {
          Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            v, i32(0));
          Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             v, i32(size));
          return arith::AndIOp::create(b, loc, low, high).getResult();
        };
        // In a dilated input: a pixel where the coordinate is a multiple
        // of the dilation (negative ones fail `inside` below).
        auto undilate = [&](Value &v, int64_t dilation) {
          if (dilation == 1)
            return;
          valid = arith::AndIOp::create(
              b, loc, valid,
              arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq,
                  arith::RemSIOp::create(b, loc, v, i32(dilation)), i32(0)));
          v = arith::DivSIOp::create(b, loc, v, i32(dilation));
        };
        undilate(ih, g.lh);
        undilate(iw, g.lw);
        valid = arith::AndIOp::create(b, loc, valid, inside(ih, g.h));
        valid = arith::AndIOp::create(b, loc, valid, inside(iw, g.w));
        // A pixel index fits 32 bits (the input has C values per pixel);
        // times C it may not.
        Value spatial = add(mul(add(mul(n, i32(g.h)), ih), i32(g.w)), iw);
        offset = add(batchOffset,
                     add(mul(toIndexType(spatial), kb.constant(g.pitch)),
                         toIndexType(c)));
      } else {
        Value globalRow = op.kContiguous ? mnIndex : kIndex;
        Value globalCol = op.kContiguous ? kIndex : mnIndex;
        // In the index type: an operand may hold more than 2^31 elements.
        offset =
            add(add(batchOffset, kb.constant(op.offset)),
                add(mul(toIndexType(globalRow), kb.constant(op.rowPitch())),
                    toIndexType(globalCol)));
      }
      // Out-of-range chunks copy nothing (zeros) from the operand's start.
      offset = arith::SelectOp::create(b, loc, valid, offset, kb.constant(0));
      Value source = kb.pointerAt(op.pointer, elementType, offset);
      Value target =
          sharedPointer(smem, add(add(stageBase, i32(op.stageOffset)),
                                  tileOffset(op, row, col)));
      if (inTile) {
        // A partial last round: threads past the tile copy nothing, but
        // must still not write outside it.
        auto guard = scf::IfOp::create(b, loc, inTile, /*withElse=*/false);
        b.setInsertionPointToStart(&guard.getThenRegion().front());
      }
      if (bytes < 4) {
        // Odd leading dimensions: no aligned cp.async exists, so a plain
        // load and store.
        Value value =
            LLVM::LoadOp::create(b, loc, elementType, source, elementBytes);
        Value zero =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
        value = arith::SelectOp::create(b, loc, valid, value, zero);
        LLVM::StoreOp::create(b, loc, value, target, elementBytes);
      } else {
        Value sourceBytes =
            arith::SelectOp::create(b, loc, valid, i32(bytes), i32(0));
        NVVM::CpAsyncOp::create(b, loc, target, source, bytes,
                                bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                            : NVVM::LoadCacheModifierKind::CA,
                                sourceBytes);
      }
      if (inTile)
        b.setInsertionPointAfter(b.getInsertionBlock()->getParentOp());
    }
  }

  /// The shared-memory offset of the row this lane addresses for an
  /// ldmatrix.x4 of `op` at M/N offset `mn` and K offset `kk`: the lane's
  /// matrix (`mnBit`, `kBit`: which 8 of 16 along M/N and along K) and its
  /// row in that matrix; a row runs along K or, transposed, along M/N.
  Value ldmatrixOffset(const Operand &op, Value base, Value mn, int64_t kk,
                       Value mnBit, Value kBit, Value rowInMatrix) {
    Value row, col;
    if (op.kContiguous) {
      row = add(mn, add(mul(mnBit, i32(8)), rowInMatrix));
      col = add(i32(kk), mul(kBit, i32(8)));
    } else {
      row = add(i32(kk), add(mul(kBit, i32(8)), rowInMatrix));
      col = add(mn, mul(mnBit, i32(8)));
    }
    return add(base, swizzled(row, col, op.tileCols(t.blockK)));
  }

  /// Copies K slice `slice + ahead`, when there is one,
  /// into its stage, and commits a group either way (so that group counts
  /// stay in step with slices).
  void prefetch(Value slice, int64_t ahead, int64_t slices,
                llvm::function_ref<void(Value, Value)> copy) {
    prefetch(slice, ahead, i32(slices), copy);
  }
  /// The same with the number of slices computed in the kernel (a split of
  /// a split-K tile).
  void prefetch(Value slice, int64_t ahead, Value slices,
                llvm::function_ref<void(Value, Value)> copy) {
    Value next = add(slice, i32(ahead));
    auto guard = scf::IfOp::create(b, loc, lt(next, slices), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      copy(next, remu(next, t.stages));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  /// ldmatrix.x4 of the 8x8 matrices whose first rows this lane addresses.
  SmallVector<Value> loadMatrices(Value smem, Value byteOffset, bool trans) {
    auto i32Type = b.getI32Type();
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), {i32Type, i32Type, i32Type, i32Type});
    Value result = NVVM::LdMatrixOp::create(
        b, loc, structType, sharedPointer(smem, byteOffset), 4,
        trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> registers;
    for (int64_t i = 0; i < 4; ++i)
      registers.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
    return registers;
  }

  /// One m16n8k16 MMA: acc += a * b.
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bRegs,
                         ArrayRef<Value> acc) {
    auto f32 = b.getF32Type();
    auto structType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    SmallVector<Value> aOps(a), bOps(bRegs);
    NVVM::MMATypes type = NVVM::MMATypes::bf16;
    if (elementType.isF16()) {
      // f16 fragments are typed as two halves.
      type = NVVM::MMATypes::f16;
      auto half2 = VectorType::get({2}, b.getF16Type());
      for (Value &v : aOps)
        v = LLVM::BitcastOp::create(b, loc, half2, v);
      for (Value &v : bOps)
        v = LLVM::BitcastOp::create(b, loc, half2, v);
    }
    Value result = NVVM::MmaOp::create(
        b, loc, structType, aOps, bOps, acc, {16, 8, 16}, std::nullopt,
        std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
    return out;
  }

  OpBuilder &b;
  Location loc;
  KernelBuilder &kb;
  const MatmulTiling &t;
  Type elementType;
  int64_t elementBytes;
};

/// The per-batch-dimension element strides of a matmul operand whose batch
/// dimensions (all but the last two) broadcast to `batchShape`.
llvm::SmallVector<int64_t> batchStridesOf(mlir::RankedTensorType type,
                                          llvm::ArrayRef<int64_t> batchShape);

/// Elements per copy: 16 bytes when the contiguous dimension allows, else
/// 8 or 4 (cp.async's sizes), else one 2-byte element.
int64_t chunkFor(int64_t leading, int64_t elementBytes);

/// One K step of 8 for f32 operands in the mma.sync kernel's fragment
/// layout: thread (group8, quad) of a warp holds A rows group8 and
/// group8 + 8 at columns quad and quad + 4 of each m16 tile, and B rows quad
/// and quad + 4 at column group8 of each n8 tile; its accumulators are
/// rows group8 and group8 + 8 at columns 2 quad and 2 quad + 1. With TF32
/// the fragments go to mma.sync m16n8k8 (rounded to TF32 first); without,
/// the thread computes its accumulators itself with f32 FMAs, reading the
/// A and B elements they need.
void emitF32Step(GemmBuilder &gb, const Operand &a, const Operand &bOp,
                 mlir::Value aBase, mlir::Value bBase, mlir::Value smem,
                 mlir::Value warpRow, mlir::Value warpCol, mlir::Value quad,
                 mlir::Value group8, int64_t kk, int64_t mTiles, int64_t nTiles,
                 bool tf32, llvm::SmallVector<mlir::Value> &acc);

/// How the warpgroup-MMA kernel's K slices reach shared memory: cp.async
/// copies by every thread, one commit group per slice; or TMA copies issued
/// by one thread, each stage's arrival counted by its mbarrier (8 bytes at
/// `barrierOffset + 8 * stage` in dynamic shared memory).
struct SliceFeed {
  /// Issues K slice `slice` (i32) of the current tile into ring position
  /// `ring` (i32): stage ring % stages, barrier phase ring / stages % 2.
  llvm::function_ref<void(mlir::Value, mlir::Value)> issue;
  bool tma = false;
  int64_t barrierOffset = 0;
};

/// Rewrites the A slice `slice` (i32) at ring position `ring` (i32) in
/// shared memory before its MMAs: a GEMM prologue (GemmPrologue.cpp).
using SliceRewrite = llvm::function_ref<void(mlir::Value, mlir::Value)>;

/// The K loop of the warpgroup-MMA kernel; returns the accumulators in the
/// m16n8 order of the mma.sync kernel (nTiles tiles of 4 per thread).
/// Copies run `stages - 2` slices ahead: one more stage than mma.sync
/// holds the slice the previous, still running wgmma batch reads. The
/// first `stages - 2` slices must be in flight already
/// (issueWarpgroupPrologue); the loop ends with every copy and MMA done.
/// Slice s sits at ring position `ringBase + s`: a persistent kernel
/// counts positions across its tiles, so that TMA barrier phases stay in
/// step when the slice count is not a multiple of the stages. With
/// `rewrite`, the block's threads rewrite each slice before its MMAs.
llvm::SmallVector<mlir::Value>
emitWarpgroupLoop(GemmBuilder &gb, const MatmulTiling &t, const Operand &a,
                  const Operand &bOp, int64_t slices, int64_t nTiles,
                  mlir::Value smem, const SliceFeed &feed, mlir::Value ringBase,
                  SliceRewrite rewrite = nullptr);

/// Copies of a tile's first `stages - 2` slices, at ring positions from
/// `ringBase` (one commit group each with cp.async).
void issueWarpgroupPrologue(GemmBuilder &gb, const MatmulTiling &t,
                            int64_t slices, const SliceFeed &feed,
                            mlir::Value ringBase);

/// How long, in nanoseconds, a thread waiting on an mbarrier may be
/// suspended per try (a hint; it wakes when the phase completes). A hint
/// of 0 would make every waiting warp spin, taking issue slots from the
/// MMA warps beside it; 10 ms is what MLIR's nvgpu lowering uses.
constexpr int64_t kTryWaitTicks = 10000000;

/// A batch dimension of a tensor map: its coordinate is the sum of the
/// output's batch indices `terms[i].first` times `terms[i].second` (several
/// output dimensions merge into one where they are laid out row-major).
struct TmaBatchDim {
  llvm::SmallVector<std::pair<unsigned, int64_t>, 2> terms;
};

/// An operand copied by TMA: its tensor map, the batch coordinates a box
/// takes after the matrix's two, and how many 64-element-wide boxes make
/// one K slice.
struct TmaOperand {
  TensorMapSpec map;
  llvm::SmallVector<TmaBatchDim, 3> batchDims;
  int64_t panels = 1;
};

/// The tensor map of `op` (group input `input`) when TMA can copy it: not
/// an implicit-GEMM gather, 128-byte K slices, the first element's offset,
/// the row pitch and the batch strides multiples of 16 bytes, and
/// at most three batch dimensions once broadcast ones are dropped and
/// row-major ones merged. Operands read through transposes and reshapes
/// (a head-splitting [B, S, H, D] -> [B, H, S, D]) qualify.
std::optional<TmaOperand>
tmaOperandFor(const Operand &op, const MatmulTiling &t, int64_t elementBytes,
              llvm::ArrayRef<int64_t> batchShape, unsigned input);

/// One operand's copies of a slice: the operand, its map, the kernel
/// parameter pointing at the map, and the tile's first M or N index.
struct TmaCopy {
  const Operand *op;
  TmaOperand tma;
  mlir::Value descriptor;
  mlir::Value tileStart;
};

/// Thread 0 initialises one mbarrier per stage at `barrierOffset` (one
/// arrival: the issuing thread's) and, with `emptyArrivals` > 0, one per
/// stage after those (that many arrivals); the block waits until they are
/// visible to the copies.
void initTmaBarriers(GemmBuilder &gb, mlir::Value smem, int64_t barrierOffset,
                     int64_t stages, mlir::Value thread,
                     int64_t emptyArrivals = 0);

/// Announces the stage's bytes on its barrier and issues the TMA copies of
/// K slice `slice` into ring position `ring` for the tile of output batch
/// indices `batchIndices` (index values); only where `issuer` holds when it
/// is given.
void issueTmaSlice(GemmBuilder &gb, llvm::ArrayRef<TmaCopy> copies,
                   mlir::Value smem, int64_t barrierOffset, mlir::Value issuer,
                   mlir::Value slice, mlir::Value ring,
                   llvm::ArrayRef<mlir::Value> batchIndices);

/// A persistent block's loop over its tiles: blockId, blockId + gridDim,
/// ... (the launched grid, so any grid walks every tile once). `tile` is
/// the loop's tile (i32) and `ringBase` the ring position of its first
/// slice (the tile's ordinal in the block times `slices`).
struct TileLoop {
  mlir::scf::ForOp loop;
  mlir::Value tile, ringBase;
};

/// Creates the loop and leaves the builder inside its body. The loop takes
/// the block's tiles of ordinal `firstOrdinal` (an index; null: 0),
/// + `ordinalStep`, ... (every tile by default; a ping-pong warpgroup takes
/// every other one).
TileLoop openTileLoop(GemmBuilder &gb, int64_t totalTiles, int64_t slices,
                      mlir::Value firstOrdinal = mlir::Value(),
                      int64_t ordinalStep = 1);

/// A wgmma shared-memory descriptor (i64): the operand's start `address`
/// (i32, in shared memory), the `leading` and `stride` byte offsets and the
/// 128-byte swizzle mode.
mlir::Value wgmmaDescriptor(GemmBuilder &gb, mlir::Value address,
                            int64_t leading, int64_t stride);

/// Issues the wgmma batch of the stage at ring position `ring` onto the
/// accumulators `accs` (LLVM structs, one per 64 rows from row block
/// `firstRowBlock` of the tile; a null `firstRowBlock` means the calling
/// thread's warpgroup) and returns them; the caller commits and waits.
llvm::SmallVector<mlir::Value>
issueWgmmaBatch(GemmBuilder &gb, const MatmulTiling &t, const Operand &a,
                const Operand &bOp, mlir::Value smem, mlir::Value ring,
                llvm::ArrayRef<mlir::Value> accs,
                mlir::Value firstRowBlock = mlir::Value());

/// The producer of the warp-specialised kernel, for the one thread that
/// runs it: walks the block's tiles (blockId, + gridDim, ...) and their
/// slices, waits until the stage at each ring position has been released
/// (its empty barrier at `emptyOffset`) and calls `issue(tile, slice,
/// ring)` (i32s) to refill it.
void emitTmaProducer(
    GemmBuilder &gb, const MatmulTiling &t, int64_t slices, int64_t totalTiles,
    mlir::Value smem, int64_t emptyOffset,
    llvm::function_ref<void(mlir::Value, mlir::Value, mlir::Value)> issue);

/// The K loop of an MMA warpgroup of the warp-specialised kernel: waits on
/// each stage's full barrier, multiplies, and releases the stage of the
/// batch before (and the last one after the loop) on its empty barrier.
/// Returns the accumulators as emitWarpgroupLoop does.
/// With a `pingPongWarpgroup` (the calling warpgroup's index, 0 or 1, as
/// i32) the warpgroup multiplies both 64-row blocks of the tile itself,
/// into two accumulator sets returned one after the other, and takes its
/// turn with the other warpgroup. With `rewrite`, the warpgroup rewrites
/// the A rows it multiplies in each slice before its MMAs (`warpgroup`,
/// i32, names its barrier).
llvm::SmallVector<mlir::Value>
emitConsumerLoop(GemmBuilder &gb, const MatmulTiling &t, const Operand &a,
                 const Operand &bOp, int64_t slices, int64_t nTiles,
                 mlir::Value smem, int64_t fullOffset, int64_t emptyOffset,
                 mlir::Value ringBase, mlir::Value pingPongWarpgroup,
                 SliceRewrite rewrite, mlir::Value warpgroup);

/// Waits until the TMA copies into ring position `ring` have landed.
void waitForTmaSlice(GemmBuilder &gb, const MatmulTiling &t, mlir::Value smem,
                     int64_t barrierOffset, mlir::Value ring);

} // namespace opfuse::gemm

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMBUILDER_H
