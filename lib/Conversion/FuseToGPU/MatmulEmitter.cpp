//===- MatmulEmitter.cpp - Tensor-core GEMM kernels from fuse.group -------===//
//
// A block owns one output tile of one batch element. K is walked in slices:
// every thread issues cp.async copies of its 16-byte chunks of the next A
// and B slices into a ring of shared-memory stages, `stages - 1` slices
// ahead of the one the warps multiply, so the copies overlap the tensor
// cores. Chunks are stored XOR-swizzled within each 128-byte line so that
// both the copies and the ldmatrix reads of eight rows hit eight different
// bank groups. Each warp multiplies its part of the tile with mma.sync
// m16n8k16 into f32 accumulators held in registers (the scf.for's
// iteration arguments), and the epilogue evaluates the group's elementwise
// ops on them before the only store.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/MatmulEmitter.h"

#include "KernelBuilder.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

std::optional<MatmulTiling> parseMatmulTiling(StringRef text,
                                              std::string &error) {
  error.clear();
  MatmulTiling tiling;
  StringRef body = text;
  if (body.consume_front("wgmma:"))
    tiling.instruction = MmaInstruction::Warpgroup;
  const bool warpgroups = tiling.instruction == MmaInstruction::Warpgroup;
  SmallVector<StringRef> parts;
  body.split(parts, '/');
  SmallVector<int64_t> values;
  for (StringRef part : parts) {
    SmallVector<StringRef> numbers;
    part.split(numbers, 'x');
    for (StringRef number : numbers) {
      int64_t value;
      if (number.getAsInteger(10, value) || value <= 0) {
        error = "'" + text.str() +
                "' is not [wgmma:]BMxBNxBK/WMxWN/S with positive integers";
        return std::nullopt;
      }
      values.push_back(value);
    }
  }
  if (parts.size() != 3 || values.size() != 6) {
    error = "'" + text.str() + "' is not [wgmma:]BMxBNxBK/WMxWN/S (e.g. " +
            formatMatmulTiling(MatmulTiling()) + ")";
    return std::nullopt;
  }
  tiling.blockM = values[0];
  tiling.blockN = values[1];
  tiling.blockK = values[2];
  tiling.warpsM = values[3];
  tiling.warpsN = values[4];
  tiling.stages = values[5];
  const MatmulTiling &t = tiling;
  if (warpgroups) {
    if (t.warpsN != 1 || t.blockM != 64 * t.warpsM)
      error = "wgmma: each warpgroup owns 64 rows of the whole tile width, "
              "so WN must be 1 and BM = 64 x WM";
    else if (t.blockN % 64 || t.blockN > 256)
      error = "wgmma: BN must be a multiple of 64, at most 256";
    else if (t.blockK != 64)
      error = "wgmma: BK must be 64 (one 128-byte swizzled row of 16-bit "
              "elements)";
    else if (t.warpsM > 4)
      error = "at most 4 warpgroups (512 threads) per block";
    else if (t.stages < 3)
      error = "wgmma: at least 3 stages (one copied, one multiplied, one "
              "still read by the MMA in flight)";
  } else {
    const int64_t warpM = t.blockM / t.warpsM, warpN = t.blockN / t.warpsN;
    if (t.blockM % t.warpsM || warpM % 16 || t.blockN % t.warpsN ||
        warpN % 16)
      error = "each warp's tile (BM/WM x BN/WN) must be a multiple of 16 in "
              "both dimensions";
    else if (t.blockK % 16)
      error = "BK must be a multiple of 16 (the MMA's K)";
    else if (t.warpsM * t.warpsN > 32)
      error = "at most 32 warps (1024 threads) per block";
    else if (t.stages < 2)
      error = "at least 2 stages (one copied while one is multiplied)";
  }
  if (error.empty() && t.sharedBytes() > 227 * 1024)
    error = "the stages need " + std::to_string(t.sharedBytes()) +
            " bytes of shared memory; an sm_90 block has at most 232448";
  if (!error.empty())
    return std::nullopt;
  return tiling;
}

std::optional<MatmulTiling> resolveMatmulTiling(StringRef text,
                                                StringRef chip,
                                                std::string &error) {
  const bool hopper = chip == "sm_90" || chip == "sm_90a";
  if (text == "auto")
    text = hopper ? "wgmma:128x256x64/2x1/4" : "128x128x32/2x2/4";
  std::optional<MatmulTiling> tiling = parseMatmulTiling(text, error);
  if (tiling && tiling->instruction == MmaInstruction::Warpgroup && !hopper) {
    error = "wgmma needs sm_90 (the kernels are compiled for " + chip.str() +
            ")";
    return std::nullopt;
  }
  return tiling;
}

std::string formatMatmulTiling(const MatmulTiling &t) {
  return ((t.instruction == MmaInstruction::Warpgroup ? "wgmma:" : "") +
          Twine(t.blockM) + "x" + Twine(t.blockN) + "x" + Twine(t.blockK) +
          "/" + Twine(t.warpsM) + "x" + Twine(t.warpsN) + "/" +
          Twine(t.stages))
      .str();
}

MatmulTiling fitMatmulTiling(const MatmulTiling &tiling, GroupOp group) {
  if (tiling.instruction != MmaInstruction::Warpgroup)
    return tiling;
  Operation *contraction = nullptr;
  for (Operation &op : group.getBody().front())
    if (isContraction(&op))
      contraction = &op;
  if (!contraction)
    return tiling;
  if (cast<RankedTensorType>(contraction->getOperand(0).getType())
          .getElementType()
          .isF32()) {
    // f32 fragments are read one element at a time: 16 warps of 32 x 32
    // keep the operands a thread holds within its registers.
    MatmulTiling f32;
    f32.warpsM = f32.warpsN = 4;
    f32.stages = 3;
    return f32;
  }
  const GemmShape shape = getGemmShape(contraction);
  MatmulTiling fitted = tiling;
  fitted.blockN = std::min<int64_t>(tiling.blockN, llvm::alignTo(shape.n, 64));
  if (shape.m <= 64) {
    fitted.warpsM = 1;
    fitted.blockM = 64;
  }
  while (fitted.stages > 3 && fitted.sharedBytes() > 227 * 1024)
    --fitted.stages;
  return fitted;
}

bool isGemmKernel(GroupOp group) {
  return llvm::any_of(group.getBody().front(), [](Operation &op) {
    return isContraction(&op);
  });
}

namespace {

constexpr const char *kDynamicShared = "opfuse_dynamic_shared";

/// One GEMM operand (A or B) as the kernel copies it: per batch element a
/// row-major matrix whose rows run along K (`kContiguous`) or along M/N.
struct Operand {
  Value pointer;          // the kernel argument
  int64_t mn = 0, k = 0;  // M (for A) or N (for B), and K
  int64_t tileMN = 0;     // blockM or blockN
  bool kContiguous = false;
  int64_t chunk = 8;      // elements per copy: 8, 4, 2 (cp.async) or 1
  int64_t stageOffset = 0; // bytes from the start of a stage
  SmallVector<int64_t> batchStrides; // per output batch dimension
  /// For a conv2d's input (the implicit GEMM's A): element (m, k) is input
  /// pixel (n, oh * sh - pt + kh * dh, ow * sw - pl + kw * dw) channel c,
  /// with m = (n, oh, ow) and k = (kh, kw, c); zero outside the image.
  struct Im2Col {
    int64_t h, w, c, kw, oh, ow, sh, sw, dh, dw, pt, pl;
  };
  std::optional<Im2Col> im2col;

  int64_t tileRows(int64_t blockK) const { return kContiguous ? tileMN : blockK; }
  int64_t tileCols(int64_t blockK) const { return kContiguous ? blockK : tileMN; }
  int64_t leading() const { return kContiguous ? k : mn; }
};

/// Builds the body of one GEMM kernel.
class GemmBuilder {
public:
  GemmBuilder(OpBuilder &b, Location loc, KernelBuilder &kb,
              const MatmulTiling &tiling, Type elementType)
      : b(b), loc(loc), kb(kb), t(tiling), elementType(elementType),
        elementBytes(getElementByteSize(elementType)) {}

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
    return add(mul(panel, i32(t.blockK * 128)), swizzled(row, remu(col, 64), 64));
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
        // A chunk is `chunk` channels of one filter tap: C is a multiple
        // of the chunk, so it never straddles two taps.
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
          Value high = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, v, i32(size));
          return arith::AndIOp::create(b, loc, low, high).getResult();
        };
        valid = arith::AndIOp::create(b, loc, valid, inside(ih, g.h));
        valid = arith::AndIOp::create(b, loc, valid, inside(iw, g.w));
        Value spatial = add(mul(add(mul(n, i32(g.h)), ih), i32(g.w)), iw);
        offset = add(mul(toIndexType(spatial), kb.constant(g.c)),
                     toIndexType(c));
      } else {
        Value globalRow = op.kContiguous ? mnIndex : kIndex;
        Value globalCol = op.kContiguous ? kIndex : mnIndex;
        offset = add(batchOffset,
                     toIndexType(add(mul(globalRow, i32(op.leading())),
                                     globalCol)));
      }
      // Out-of-range chunks copy nothing (zeros) from the operand's start.
      offset = arith::SelectOp::create(b, loc, valid, offset, kb.constant(0));
      Value source = kb.pointerAt(op.pointer, elementType, offset);
      Value target = sharedPointer(
          smem, add(add(stageBase, i32(op.stageOffset)),
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
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
        value = arith::SelectOp::create(b, loc, valid, value, zero);
        LLVM::StoreOp::create(b, loc, value, target, elementBytes);
      } else {
        Value sourceBytes = arith::SelectOp::create(b, loc, valid,
                                                    i32(bytes), i32(0));
        NVVM::CpAsyncOp::create(
            b, loc, target, source, bytes,
            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                        : NVVM::LoadCacheModifierKind::CA,
            sourceBytes);
      }
      if (inTile)
        b.setInsertionPointAfter(b.getInsertionBlock()->getParentOp());
    }
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
SmallVector<int64_t> batchStridesOf(RankedTensorType type,
                                    ArrayRef<int64_t> batchShape) {
  SmallVector<int64_t> strides(batchShape.size(), 0);
  const int64_t rank = type.getRank();
  int64_t stride = type.getDimSize(rank - 1) * type.getDimSize(rank - 2);
  for (int64_t d = rank - 3, o = batchShape.size() - 1; d >= 0; --d, --o) {
    if (type.getDimSize(d) != 1)
      strides[o] = stride;
    stride *= type.getDimSize(d);
  }
  return strides;
}

/// One K step of 8 for f32 operands in the mma.sync kernel's fragment
/// layout: thread (group8, quad) of a warp holds A rows group8 and
/// group8 + 8 at columns quad and quad + 4 of each m16 tile, and B rows quad
/// and quad + 4 at column group8 of each n8 tile; its accumulators are
/// rows group8 and group8 + 8 at columns 2 quad and 2 quad + 1. With TF32
/// the fragments go to mma.sync m16n8k8 (rounded to TF32 first); without,
/// the thread computes its accumulators itself with f32 FMAs, reading the
/// A and B elements they need.
void emitF32Step(GemmBuilder &gb, const Operand &a, const Operand &bOp,
                 Value aBase, Value bBase, Value smem, Value warpRow,
                 Value warpCol, Value quad, Value group8, int64_t kk,
                 int64_t mTiles, int64_t nTiles, bool tf32,
                 SmallVector<Value> &acc) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  auto load = [&](const Operand &op, Value base, Value mn, Value k) {
    Value row = op.kContiguous ? mn : k, col = op.kContiguous ? k : mn;
    Value offset = gb.add(base, gb.tileOffset(op, row, col));
    return LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                gb.sharedPointer(smem, offset), 4)
        .getResult();
  };
  auto f32 = b.getF32Type();
  if (tf32) {
    auto toTF32 = [&](Value x) {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange{x},
                 "cvt.rna.tf32.f32 $0, $1;", "=r,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                 ArrayAttr())
          .getResult(0);
    };
    SmallVector<SmallVector<Value>> aFragments, bFragments;
    for (int64_t i = 0; i < mTiles; ++i) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16), group8));
      Value m8 = gb.add(m, gb.i32(8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      aFragments.push_back({toTF32(load(a, aBase, m, k)),
                            toTF32(load(a, aBase, m8, k)),
                            toTF32(load(a, aBase, m, k4)),
                            toTF32(load(a, aBase, m8, k4))});
    }
    for (int64_t j = 0; j < nTiles; ++j) {
      Value n = gb.add(warpCol, gb.add(gb.i32(j * 8), group8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      bFragments.push_back({toTF32(load(bOp, bBase, n, k)),
                            toTF32(load(bOp, bBase, n, k4))});
    }
    auto structType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        MutableArrayRef<Value> c(&acc[(i * nTiles + j) * 4], 4);
        Value d = NVVM::MmaOp::create(
            b, loc, structType, aFragments[i], bFragments[j], c, {16, 8, 8},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                          NVVM::MMATypes::tf32},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t e = 0; e < 4; ++e)
          c[e] = LLVM::ExtractValueOp::create(b, loc, d, e);
      }
    return;
  }
  // SIMT: A rows group8 and group8 + 8 of each m16 tile, B columns 2 quad
  // and 2 quad + 1 of each n8 tile, over the 8 K of this step.
  SmallVector<SmallVector<Value>> aRows, bCols;
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16 + half * 8), group8));
      SmallVector<Value> row;
      for (int64_t k = 0; k < 8; ++k)
        row.push_back(load(a, aBase, m, gb.i32(kk + k)));
      aRows.push_back(std::move(row));
    }
  for (int64_t j = 0; j < nTiles; ++j)
    for (int64_t pair = 0; pair < 2; ++pair) {
      Value n = gb.add(warpCol, gb.add(gb.i32(j * 8 + pair),
                                       gb.mul(quad, gb.i32(2))));
      SmallVector<Value> col;
      for (int64_t k = 0; k < 8; ++k)
        col.push_back(load(bOp, bBase, n, gb.i32(kk + k)));
      bCols.push_back(std::move(col));
    }
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t e = 0; e < 4; ++e) {
        Value &c = acc[(i * nTiles + j) * 4 + e];
        ArrayRef<Value> row = aRows[i * 2 + e / 2], col = bCols[j * 2 + e % 2];
        for (int64_t k = 0; k < 8; ++k)
          c = math::FmaOp::create(b, loc, row[k], col[k], c);
      }
}

/// A wgmma shared-memory descriptor: the operand's start address, the
/// leading and stride byte offsets and the 128-byte swizzle mode.
Value wgmmaDescriptor(GemmBuilder &gb, Value address, int64_t leading,
                      int64_t stride) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  Value encoded = gb.remu(gb.divu(address, 16), 1 << 14);
  Value low = arith::ExtUIOp::create(b, loc, b.getI64Type(), encoded);
  const uint64_t high = (uint64_t(leading >> 4) << 16) |
                        (uint64_t(stride >> 4) << 32) | (uint64_t(1) << 62);
  Value constant = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(high)));
  return arith::OrIOp::create(b, loc, low, constant);
}

/// The K loop of the warpgroup-MMA kernel; returns the accumulators in the
/// m16n8 order of the mma.sync kernel (nTiles tiles of 4 per thread).
/// Copies run `stages - 2` slices ahead: one more stage than mma.sync
/// holds the slice the previous, still running wgmma batch reads.
SmallVector<Value>
emitWarpgroupLoop(GemmBuilder &gb, const MatmulTiling &t, const Operand &a,
                  const Operand &bOp, int64_t slices, int64_t nTiles,
                  Value smem, llvm::function_ref<void(Value, Value)> copy) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  MLIRContext *context = b.getContext();
  for (int64_t s = 0; s + 2 < t.stages; ++s) {
    if (s < slices)
      copy(gb.i32(s), gb.i32(s));
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  auto f32 = b.getF32Type();
  SmallVector<Type> fields(nTiles * 4, f32);
  auto accType = LLVM::LLVMStructType::getLiteral(context, fields);
  Value init = LLVM::ZeroOp::create(b, loc, accType);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, slices);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (!body->empty())
      body->getTerminator()->erase();
    b.setInsertionPointToStart(body);
    Value slice = arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                               loop.getInductionVar());
    // Slice `slice` has landed; the proxy fence makes the copies visible
    // to the tensor cores' reads; after the barrier every warpgroup has
    // also finished the wgmma batch of slice - 2, whose stage is refilled.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, t.stages - 3);
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(b, loc);
    Value next = gb.add(slice, gb.i32(t.stages - 2));
    auto prefetch =
        scf::IfOp::create(b, loc, gb.lt(next, gb.i32(slices)), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&prefetch.getThenRegion().front());
      copy(next, gb.remu(next, t.stages));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);

    const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * 2;
    Value base = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smem));
    Value stageBase = gb.add(base, gb.mul(gb.remu(slice, t.stages),
                                          gb.i32(stageBytes)));
    // Warpgroup g multiplies rows 64g..64g+63: 64 rows of 128 bytes into
    // a K-contiguous tile, or panel g of an M-contiguous one (BK = 64 rows
    // of 128 bytes: the same 8 KiB).
    Value warpgroup = gb.divu(gb.divu(
        arith::IndexCastUIOp::create(
            b, loc, b.getI32Type(),
            gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)),
        32), 4);
    Value aBase = gb.add(gb.add(stageBase, gb.i32(a.stageOffset)),
                         gb.mul(warpgroup, gb.i32(64 * 128)));
    Value bBase = gb.add(stageBase, gb.i32(bOp.stageOffset));
    const int64_t panel = t.blockK * 128;
    Value acc = body->getArgument(1);
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    NVVM::WGMMATypes type = gb.elementType.isF16() ? NVVM::WGMMATypes::f16
                                                   : NVVM::WGMMATypes::bf16;
    for (int64_t kk = 0; kk < t.blockK / 16; ++kk) {
      // K-contiguous: 16 more elements along the 128-byte row (32 bytes).
      // M/N-contiguous: 16 more rows (2048 bytes).
      auto stepOf = [&](const Operand &op) {
        return op.kContiguous ? kk * 32 : kk * 16 * 128;
      };
      Value descA = wgmmaDescriptor(gb, gb.add(aBase, gb.i32(stepOf(a))),
                                    a.kContiguous ? 16 : panel, 1024);
      Value descB = wgmmaDescriptor(gb, gb.add(bBase, gb.i32(stepOf(bOp))),
                                    bOp.kContiguous ? 16 : panel, 1024);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, accType, acc, descA, descB,
          NVVM::MMAShapeAttr::get(context, 64, t.blockN, 16), type, type,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          a.kContiguous ? NVVM::MMALayout::row : NVVM::MMALayout::col,
          bOp.kContiguous ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> values;
  for (int64_t i = 0; i < nTiles * 4; ++i)
    values.push_back(
        LLVM::ExtractValueOp::create(b, loc, loop.getResult(0), i));
  return values;
}

/// Elements per copy: 16 bytes when the contiguous dimension allows, else
/// 8 or 4 (cp.async's sizes), else one 2-byte element.
int64_t chunkFor(int64_t leading, int64_t elementBytes) {
  for (int64_t bytes : {16, 8, 4})
    if (leading % (bytes / elementBytes) == 0)
      return bytes / elementBytes;
  return 1;
}

} // namespace

FailureOr<LaunchConfig> emitGemmKernel(GroupOp group, gpu::GPUModuleOp module,
                                       StringRef name, const MatmulTiling &t,
                                       bool allowTF32) {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  std::string why;
  Operation *contraction = analyzeGemmKernel(ops, why);
  if (!contraction)
    return group.emitError("not one GEMM kernel: ") << why;
  auto matmul = dyn_cast<MatmulOp>(contraction);
  auto conv = dyn_cast<Conv2DOp>(contraction);
  Value lhs = contraction->getOperand(0), rhs = contraction->getOperand(1);
  Type elementType = cast<RankedTensorType>(lhs.getType()).getElementType();
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32())
    return contraction->emitError("the GEMM kernels take bf16, f16 or f32 "
                                  "operands; ")
           << elementType << " " << contraction->getName().stripDialect()
           << "s are not supported for GPU emission";
  const int64_t elementBytes = getElementByteSize(elementType);
  if (elementType.isF32() && t.instruction == MmaInstruction::Warpgroup)
    return contraction->emitError("wgmma tilings take bf16 or f16 operands; "
                                  "give f32 an mma.sync tiling (e.g. ")
           << formatMatmulTiling(MatmulTiling()) << ")";
  if (t.sharedBytes(elementBytes) > 227 * 1024)
    return contraction->emitError("matmul-tiling ")
           << formatMatmulTiling(t) << " needs "
           << t.sharedBytes(elementBytes) << " bytes of shared memory for "
           << elementType << " operands; an sm_90 block has at most 232448";
  if (conv && conv.getGroups() != 1)
    return conv.emitError("grouped conv2d (groups = ")
           << conv.getGroups() << ") is not yet supported for GPU emission";
  auto lhsArg = dyn_cast<BlockArgument>(lhs);
  auto rhsArg = dyn_cast<BlockArgument>(rhs);
  if (!lhsArg || !rhsArg)
    return contraction->emitError("a GEMM kernel reads its operands from "
                                  "memory; they must be inputs of the group");

  auto output = cast<RankedTensorType>(contraction->getResult(0).getType());
  // A conv2d's output [N, OH, OW, F] is the GEMM's M x N, unbatched.
  ArrayRef<int64_t> batchShape =
      conv ? ArrayRef<int64_t>() : output.getShape().drop_back(2);
  const GemmShape shape = getGemmShape(contraction);
  const bool warpgroups = t.instruction == MmaInstruction::Warpgroup;
  const int64_t threads = t.threads();
  // Accumulators: each warp holds mTiles x nTiles m16n8 tiles (4 f32 a
  // thread each); a warpgroup's m64nN result is laid out the same way, a
  // warp owning 16 of its 64 rows.
  const int64_t warpM = warpgroups ? 16 : t.blockM / t.warpsM;
  const int64_t warpN = warpgroups ? t.blockN : t.blockN / t.warpsN;
  const int64_t mTiles = warpM / 16, nTiles = warpN / 8;

  Operand a, bOp;
  a.mn = shape.m;
  a.k = shape.k;
  a.tileMN = t.blockM;
  bOp.mn = shape.n;
  bOp.k = shape.k;
  bOp.tileMN = t.blockN;
  if (matmul) {
    a.kContiguous = !matmul.getTransposeA();
    a.batchStrides = batchStridesOf(matmul.getLhs().getType(), batchShape);
    bOp.kContiguous = matmul.getTransposeB();
    bOp.batchStrides = batchStridesOf(matmul.getRhs().getType(), batchShape);
    a.chunk = chunkFor(a.leading(), elementBytes);
  } else {
    // The filter [F, KH, KW, C] is B stored N x K, K-contiguous.
    ArrayRef<int64_t> in = conv.getInput().getType().getShape();
    ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
    ArrayRef<int64_t> strides = conv.getStrides(), dilation = conv.getDilation(),
                      padding = conv.getPadding();
    a.kContiguous = bOp.kContiguous = true;
    a.im2col = Operand::Im2Col{in[1],          in[2],       in[3],
                               filter[2],      output.getDimSize(1),
                               output.getDimSize(2),        strides[0],
                               strides[1],     dilation[0], dilation[1],
                               padding[0],     padding[2]};
    a.chunk = chunkFor(in[3], elementBytes);
  }
  bOp.chunk = chunkFor(bOp.leading(), elementBytes);
  bOp.stageOffset = t.blockM * t.blockK * elementBytes;
  const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * elementBytes;

  int64_t largest = 0;
  for (Type type : llvm::concat<const Type>(group.getInputs().getTypes(),
                                           group.getResultTypes()))
    largest = std::max(largest, getNumElements(type));
  Type indexType = indexTypeFor(group.getContext(), largest);

  OpBuilder b(group.getContext());
  Location loc = group.getLoc();

  // The dynamic shared memory all stages live in, declared once per module.
  auto sharedPointerType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  if (!module.lookupSymbol(kDynamicShared)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc,
                           LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kDynamicShared, Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }

  gpu::GPUFuncOp func = createKernel(b, group, module, name, threads);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  GemmBuilder gb(b, loc, kb, t, elementType);
  a.pointer = entry.getArgument(lhsArg.getArgNumber());
  bOp.pointer = entry.getArgument(rhsArg.getArgNumber());
  Value smem = LLVM::AddressOfOp::create(b, loc, sharedPointerType,
                                         kDynamicShared);

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  Value thread = toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value blockId = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value lane = gb.remu(thread, 32);
  Value warp = gb.divu(thread, 32);
  Value warpRow =
      warpgroups
          ? gb.add(gb.mul(gb.divu(warp, 4), gb.i32(64)),
                   gb.mul(gb.remu(warp, 4), gb.i32(16)))
          : gb.mul(gb.divu(warp, t.warpsN), gb.i32(warpM));
  Value warpCol = warpgroups
                      ? gb.i32(0)
                      : gb.mul(gb.remu(warp, t.warpsN), gb.i32(warpN));

  // Blocks walk the tiles in groups of 8 tile-rows, column by column, so
  // that blocks running together share A rows and B columns in L2.
  const int64_t tilesM = llvm::divideCeil(shape.m, t.blockM);
  const int64_t tilesN = llvm::divideCeil(shape.n, t.blockN);
  const int64_t tilesPerBatch = tilesM * tilesN;
  constexpr int64_t groupRows = 8;
  Value batch = gb.divu(blockId, tilesPerBatch);
  Value tile = gb.remu(blockId, tilesPerBatch);
  Value groupId = gb.divu(tile, groupRows * tilesN);
  Value firstRow = gb.mul(groupId, gb.i32(groupRows));
  Value rowsInGroup = arith::MinUIOp::create(
      b, loc, gb.i32(groupRows),
      arith::SubIOp::create(b, loc, gb.i32(tilesM), firstRow));
  Value inGroup = gb.remu(tile, groupRows * tilesN);
  Value tileRow = gb.add(firstRow, arith::RemUIOp::create(b, loc, inGroup,
                                                          rowsInGroup));
  Value tileCol = arith::DivUIOp::create(b, loc, inGroup, rowsInGroup);
  Value tileM = gb.mul(tileRow, gb.i32(t.blockM));
  Value tileN = gb.mul(tileCol, gb.i32(t.blockN));

  SmallVector<Value> batchIndices =
      batchShape.empty() ? SmallVector<Value>()
                         : kb.decompose(gb.toIndexType(batch), batchShape);
  auto batchOffsetOf = [&](ArrayRef<int64_t> strides) {
    Value offset = kb.constant(0);
    for (auto [d, stride] : llvm::enumerate(strides))
      if (stride != 0)
        offset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(b, loc, batchIndices[d],
                                  kb.constant(stride)));
    return offset;
  };
  Value aBatch = batchOffsetOf(a.batchStrides);
  Value bBatch = batchOffsetOf(bOp.batchStrides);

  auto copyStage = [&](Value slice, Value stage) {
    Value stageBase = gb.mul(stage, gb.i32(stageBytes));
    gb.copySlice(a, slice, stageBase, thread, tileM, aBatch, smem);
    gb.copySlice(bOp, slice, stageBase, thread, tileN, bBatch, smem);
  };

  const int64_t slices = llvm::divideCeil(shape.k, t.blockK);
  SmallVector<Value> acc;
  if (warpgroups) {
    acc = emitWarpgroupLoop(gb, t, a, bOp, slices, nTiles, smem, copyStage);
  } else {
    // Prologue: the first stages - 1 slices in flight, one commit group each.
    for (int64_t s = 0; s + 1 < t.stages; ++s) {
      if (s < slices)
        copyStage(gb.i32(s), gb.i32(s));
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }

    const int64_t accumulators = mTiles * nTiles * 4;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    SmallVector<Value> init(accumulators, zero);
    Value lower = arith::ConstantIndexOp::create(b, loc, 0);
    Value upper = arith::ConstantIndexOp::create(b, loc, slices);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, lower, upper, step, init);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *loopBody = loop.getBody();
      if (!loopBody->empty())
        loopBody->getTerminator()->erase();
      b.setInsertionPointToStart(loopBody);
      Value slice = toI32(loop.getInductionVar());
      // Slice `slice` has landed (at most stages - 2 newer groups pending),
      // and every warp is done with the stage the next copy overwrites.
      NVVM::CpAsyncWaitGroupOp::create(b, loc, t.stages - 2);
      gpu::BarrierOp::create(b, loc);
      Value next = gb.add(slice, gb.i32(t.stages - 1));
      auto prefetch =
          scf::IfOp::create(b, loc, gb.lt(next, gb.i32(slices)), false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&prefetch.getThenRegion().front());
        copyStage(next, gb.remu(next, t.stages));
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);

      Value stageBase = gb.mul(gb.remu(slice, t.stages), gb.i32(stageBytes));
      Value aBase = gb.add(stageBase, gb.i32(a.stageOffset));
      Value bBase = gb.add(stageBase, gb.i32(bOp.stageOffset));
      Value matrix = gb.divu(lane, 8), rowInMatrix = gb.remu(lane, 8);
      Value matrixLow = gb.remu(matrix, 2), matrixHigh = gb.divu(matrix, 2);
      SmallVector<Value> acc(loopBody->getArguments().drop_front());
      if (elementType.isF32()) {
        Value quad = gb.remu(lane, 4), group8 = gb.divu(lane, 4);
        for (int64_t kk = 0; kk < t.blockK; kk += 8)
          emitF32Step(gb, a, bOp, aBase, bBase, smem, warpRow, warpCol, quad,
                      group8, kk, mTiles, nTiles, allowTF32, acc);
      }
      for (int64_t kk = 0; kk < t.blockK && !elementType.isF32(); kk += 16) {
        // A fragments: matrices (m0, k0), (m8, k0), (m0, k8), (m8, k8).
        SmallVector<SmallVector<Value>> aFragments;
        for (int64_t i = 0; i < mTiles; ++i) {
          Value m = gb.add(warpRow, gb.i32(i * 16));
          Value row, col;
          if (a.kContiguous) {
            row = gb.add(m, gb.add(gb.mul(matrixLow, gb.i32(8)), rowInMatrix));
            col = gb.add(gb.i32(kk), gb.mul(matrixHigh, gb.i32(8)));
          } else {
            row = gb.add(gb.i32(kk),
                         gb.add(gb.mul(matrixHigh, gb.i32(8)), rowInMatrix));
            col = gb.add(m, gb.mul(matrixLow, gb.i32(8)));
          }
          Value offset = gb.add(aBase, gb.swizzled(row, col, a.tileCols(t.blockK)));
          aFragments.push_back(gb.loadMatrices(smem, offset, !a.kContiguous));
        }
        // B fragments, two n8 tiles per ldmatrix.x4: (n0, k0), (n0, k8),
        // (n8, k0), (n8, k8).
        SmallVector<SmallVector<Value>> bFragments;
        for (int64_t j = 0; j < nTiles; j += 2) {
          Value n = gb.add(warpCol, gb.i32(j * 8));
          Value row, col;
          if (bOp.kContiguous) {
            row = gb.add(n, gb.add(gb.mul(matrixHigh, gb.i32(8)), rowInMatrix));
            col = gb.add(gb.i32(kk), gb.mul(matrixLow, gb.i32(8)));
          } else {
            row = gb.add(gb.i32(kk),
                         gb.add(gb.mul(matrixLow, gb.i32(8)), rowInMatrix));
            col = gb.add(n, gb.mul(matrixHigh, gb.i32(8)));
          }
          Value offset =
              gb.add(bBase, gb.swizzled(row, col, bOp.tileCols(t.blockK)));
          SmallVector<Value> four =
              gb.loadMatrices(smem, offset, !bOp.kContiguous);
          bFragments.push_back({four[0], four[1]});
          bFragments.push_back({four[2], four[3]});
        }
        for (int64_t i = 0; i < mTiles; ++i)
          for (int64_t j = 0; j < nTiles; ++j) {
            MutableArrayRef<Value> c(&acc[(i * nTiles + j) * 4], 4);
            SmallVector<Value> d = gb.mma(aFragments[i], bFragments[j], c);
            llvm::copy(d, c.begin());
          }
      }
      scf::YieldOp::create(b, loc, acc);
    }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  llvm::append_range(acc, loop.getResults());
  }

  // Epilogue. Inputs other than the matmul's operands are read at the
  // broadcast index of the output; splat constants are scalars.
  DenseMap<Value, InputAccess> epilogueInputs;
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    bool used = llvm::any_of(argument.getUsers(), [&](Operation *user) {
      return user != contraction;
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
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  const bool pairs = shape.n % 2 == 0;
  const bool fullTiles = shape.m % t.blockM == 0 && shape.n % t.blockN == 0;
  Value group8 = gb.divu(lane, 4), quad = gb.remu(lane, 4);
  Value batchBase = arith::MulIOp::create(b, loc, gb.toIndexType(batch),
                                          kb.constant(shape.m * shape.n));

  // Stores `lanes` (1 or 2 consecutive accumulators) at (row, col).
  auto storeAt = [&](Value row, Value col, ArrayRef<Value> lanes) -> LogicalResult {
    const int64_t count = lanes.size();
    SmallVector<Value> indices(batchIndices);
    if (conv)
      indices = kb.decompose(gb.toIndexType(row), output.getShape().drop_back());
    else
      indices.push_back(gb.toIndexType(row));
    indices.push_back(gb.toIndexType(col));
    DenseMap<Value, SmallVector<Value>> values;
    values[contraction->getResult(0)] = SmallVector<Value>(lanes);
    for (auto &[argument, access] : epilogueInputs) {
      Type type = cast<RankedTensorType>(argument.getType()).getElementType();
      Value pointer = entry.getArgument(
          cast<BlockArgument>(argument).getArgNumber());
      Value offset = kb.broadcastOffset(access, access.isScalar
                                                    ? ArrayRef<Value>()
                                                    : ArrayRef<Value>(indices));
      if (access.innerContiguous && count > 1) {
        values[argument] = kb.load(pointer, type, offset, count);
      } else {
        Value one = kb.load(pointer, type, offset, 1).front();
        values[argument] = SmallVector<Value>(count, one);
      }
    }
    for (Operation *op : ops) {
      if (op == contraction)
        continue;
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        values[constant.getResult()] =
            SmallVector<Value>(count, splatScalar(b, constant));
        continue;
      }
      SmallVector<Value> results;
      for (int64_t l = 0; l < count; ++l) {
        SmallVector<Value> operands;
        for (Value operand : op->getOperands())
          operands.push_back(values.lookup(operand)[l]);
        FailureOr<Value> scalar = emitScalarOp(b, op, operands);
        if (failed(scalar))
          return failure();
        results.push_back(*scalar);
      }
      values[op->getResult(0)] = std::move(results);
    }
    Value offset = arith::AddIOp::create(
        b, loc, batchBase,
        gb.toIndexType(gb.add(gb.mul(row, gb.i32(shape.n)), col)));
    for (auto [index, value] : llvm::enumerate(yield.getOperands()))
      kb.store(entry.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               offset, values.lookup(value));
    return success();
  };
  auto guarded = [&](Value condition, auto emit) -> LogicalResult {
    if (!condition)
      return emit();
    auto guard = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    return emit();
  };
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = gb.add(gb.add(tileM, warpRow),
                           gb.add(gb.i32(i * 16 + half * 8), group8));
        Value col = gb.add(gb.add(tileN, warpCol),
                           gb.add(gb.i32(j * 8), gb.mul(quad, gb.i32(2))));
        Value first = acc[(i * nTiles + j) * 4 + half * 2];
        Value second = acc[(i * nTiles + j) * 4 + half * 2 + 1];
        Value rowValid = fullTiles ? Value() : gb.lt(row, gb.i32(shape.m));
        auto both = [&](Value c) {
          Value v = gb.lt(c, gb.i32(shape.n));
          return rowValid ? arith::AndIOp::create(b, loc, rowValid, v)
                                .getResult()
                          : v;
        };
        if (pairs) {
          if (failed(guarded(fullTiles ? Value() : both(col), [&] {
                return storeAt(row, col, {first, second});
              })))
            return failure();
          continue;
        }
        Value nextCol = gb.add(col, gb.i32(1));
        if (failed(guarded(both(col),
                           [&] { return storeAt(row, col, {first}); })) ||
            failed(guarded(both(nextCol),
                           [&] { return storeAt(row, nextCol, {second}); })))
          return failure();
      }

  LaunchConfig config;
  config.block = threads;
  config.grid = shape.batch * tilesPerBatch;
  config.sharedBytes = t.sharedBytes(elementBytes);
  return config;
}

} // namespace opfuse
