//===- AttentionKernel.cpp - The flash-style attention kernel -------------===//
//
// A block of 4 warps owns BM query rows of one (batch, head); each warp
// owns BM / 4 of them (one or two m16 tiles). The Q tile is copied into
// shared memory once; keys and values stream through two stages of BN
// rows, the next tile's cp.async copies in flight while the warps compute
// on the current one. Per tile each warp computes its scores S = Q Kᵀ
// with mma.sync m16n8k16 (ldmatrix fragments of Q and K), scales them
// into the base-2 domain, adds the mask, hides keys past the sequence or
// (causal) past the row, and updates its rows' running maximum and sum
// (online softmax: earlier output rows rescaled by 2^(m_old - m_new)).
// The probabilities never leave registers: the accumulator fragment of
// S, rounded to bf16/f16 in pairs, is the A fragment of P V (V read with
// ldmatrix.trans). With wgmma tiles (sm_90) a warpgroup owns 64 rows and
// both products are wgmma batches from 128-byte-swizzled shared tiles
// (P through the warpgroup's own tile), their accumulators read in the
// same fragment order, so the softmax is the same code. Causal blocks
// stop at their last visible key tile, and blocks start with the longest
// rows so the tail of the grid is short. At the end each row is divided
// by its sum (zero for a row with no visible key) and handed to the GEMM
// epilogue.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "FastMath.h"
#include "GemmEmission.h"

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::attention {

AttentionKernel::AttentionKernel(AttentionProblem &p, const AttentionTiling &t,
                                 OpBuilder &b, KernelBuilder &kb,
                                 GemmBuilder &gb, Block &entry, Value smem)
    : p(p), t(t), b(b), loc(p.op.getLoc()), kb(kb), gb(gb), entry(entry),
      smem(smem) {
  elementBytes = getElementByteSize(p.elementType);
  mTiles = t.rowsPerWarp() / 16;
  sTiles = t.blockN / 8;
  oTiles = p.dv / 8;
  qBytes = t.blockM * p.d * elementBytes;
  kBytes = t.blockN * p.d * elementBytes;
  vBytes = t.blockN * p.dv * elementBytes;
  stageBytes = kBytes + vBytes;
  pBytes = 64 * t.blockN * elementBytes;
}

Value AttentionKernel::exp2(Value x) {
  return emitPtxUnaryF32(b, loc, "ex2.approx.ftz.f32", x);
}

Value AttentionKernel::exp2Polynomial(Value x) {
  // Clamped to -127 (so -inf gives exactly 0: f = 0, p = 1, exponent
  // field 0); t = x + 1.5 * 2^23 rounded down holds floor(x) in its low
  // bits, which shifted into the exponent field scale p(x - floor(x)).
  // The cubic is the minimax fit of 2^f on [0, 1) with p(0) = 1.
  return LLVM::InlineAsmOp::create(
             b, loc, b.getF32Type(), ValueRange{x},
             "{\n.reg .f32 x, t, j, f, p;\n.reg .b32 tb, pb;\n"
             "max.ftz.f32 x, $1, 0fC2FE0000;\n"
             "add.rm.ftz.f32 t, x, 0f4B400000;\n"
             "sub.ftz.f32 j, t, 0f4B400000;\n"
             "sub.ftz.f32 f, x, j;\n"
             "fma.rn.ftz.f32 p, f, 0f3D9DF09D, 0f3E6906A4;\n"
             "fma.rn.ftz.f32 p, p, f, 0f3F31F519;\n"
             "fma.rn.ftz.f32 p, p, f, 0f3F800000;\n"
             "mov.b32 tb, t;\nmov.b32 pb, p;\n"
             "shl.b32 tb, tb, 23;\nadd.s32 pb, pb, tb;\n"
             "mov.b32 $0, pb;\n}",
             "=f,f",
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

Value AttentionKernel::tanh(Value y) {
  Value power = exp2(fmul(y, f32(2 * kLog2e)));
  Value inverse =
      emitPtxUnaryF32(b, loc, "rcp.approx.ftz.f32", fadd(power, f32(1.0)));
  return math::FmaOp::create(b, loc, inverse, f32(-2.0), f32(1.0));
}

Value AttentionKernel::quadReduce(Value value, bool sum) {
  for (int64_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(b, loc, value, gb.i32(offset),
                                         gb.i32(32), gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = sum ? fadd(value, other) : fmax(value, other);
  }
  return value;
}

void AttentionKernel::scaleRow(SmallVector<Value> &o, int64_t i, int64_t half,
                               Value factor) {
  for (int64_t j = 0; j < oTiles; ++j)
    for (int64_t e = 0; e < 2; ++e) {
      Value &acc = o[(i * oTiles + j) * 4 + half * 2 + e];
      acc = fmul(acc, factor);
    }
}

void AttentionKernel::mmaTilePair(ArrayRef<SmallVector<Value>> a,
                                  ArrayRef<Value> four, SmallVector<Value> &acc,
                                  int64_t tiles, int64_t j) {
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      MutableArrayRef<Value> c(&acc[(i * tiles + j + half) * 4], 4);
      SmallVector<Value> d =
          gb.mma(a[i], {four[2 * half], four[2 * half + 1]}, c);
      llvm::copy(d, c.begin());
    }
}

SmallVector<Value> AttentionKernel::scores(Value stage) {
  Value kTile = gb.add(gb.i32(qBytes), gb.mul(stage, gb.i32(stageBytes)));
  Value zero = f32(0.0);
  SmallVector<Value> s(mTiles * sTiles * 4, zero);
  for (int64_t kk = 0; kk < p.d; kk += 16) {
    SmallVector<SmallVector<Value>> a;
    for (int64_t i = 0; i < mTiles; ++i) {
      Value row = gb.add(gb.add(warpRow, gb.i32(i * 16)),
                         gb.add(gb.mul(matrixLow, gb.i32(8)), rowInMatrix));
      Value col = gb.add(gb.i32(kk), gb.mul(matrixHigh, gb.i32(8)));
      a.push_back(gb.loadMatrices(smem, gb.swizzled(row, col, p.d), false));
    }
    for (int64_t j = 0; j < sTiles; j += 2) {
      Value row = gb.add(gb.i32(j * 8),
                         gb.add(gb.mul(matrixHigh, gb.i32(8)), rowInMatrix));
      Value col = gb.add(gb.i32(kk), gb.mul(matrixLow, gb.i32(8)));
      mmaTilePair(a,
                  gb.loadMatrices(
                      smem, gb.add(kTile, gb.swizzled(row, col, p.d)), false),
                  s, sTiles, j);
    }
  }
  return s;
}

void AttentionKernel::logits(SmallVector<Value> &s, Value tile) {
  Value scale = f32(p.scale * kLog2e);
  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  Value firstKey = gb.mul(tile, gb.i32(t.blockN));
  const bool ragged = p.sk % t.blockN != 0;
  Value maskPointer = p.maskInput ? entry.getArgument(*p.maskInput) : Value();
  Type maskType =
      p.maskInput
          ? cast<RankedTensorType>(p.op.getMask().getType()).getElementType()
          : Type();
  // The mask's offset for the block's (batch, head); rows and columns are
  // clamped into the mask so that hidden positions read a valid element.
  Value maskBase;
  if (p.maskInput)
    maskBase = kb.broadcastOffset(p.mask, {gb.toIndexType(batchIndex),
                                           gb.toIndexType(headIndex),
                                           kb.constant(0), kb.constant(0)});
  auto rowOf = [&](int64_t i, int64_t half) {
    return gb.add(gb.add(mStart, warpRow),
                  gb.add(gb.i32(i * 16 + half * 8), group8));
  };
  auto colOf = [&](int64_t j, int64_t e) {
    return gb.add(gb.add(firstKey, gb.i32(j * 8 + e)), gb.mul(quad, gb.i32(2)));
  };
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      Value row = rowOf(i, half);
      Value maskRow;
      if (p.maskInput)
        maskRow = arith::AddIOp::create(
            b, loc, maskBase,
            arith::MulIOp::create(b, loc,
                                  gb.toIndexType(arith::MinUIOp::create(
                                      b, loc, row, gb.i32(p.sq - 1))),
                                  kb.constant(p.mask.strides[2])));
      for (int64_t j = 0; j < sTiles; ++j)
        for (int64_t e = 0; e < 2; ++e) {
          Value &x = s[(i * sTiles + j) * 4 + half * 2 + e];
          if (foldsScale())
            continue;
          if (p.softcap > 0)
            // c tanh(scale s / c), in the base-2 domain.
            x = fmul(tanh(fmul(x, f32(p.scale / p.softcap))),
                     f32(p.softcap * kLog2e));
          else
            x = fmul(x, scale);
          if (p.maskInput) {
            Value clamped =
                arith::MinUIOp::create(b, loc, colOf(j, e), gb.i32(p.sk - 1));
            Value offset = arith::AddIOp::create(
                b, loc, maskRow,
                arith::MulIOp::create(b, loc, gb.toIndexType(clamped),
                                      kb.constant(p.mask.strides[3])));
            Value m = kb.load(maskPointer, maskType, offset, 1).front();
            x = math::FmaOp::create(b, loc, m, f32(kLog2e), x);
          }
        }
    }
  if (!p.causal && !ragged)
    return;
  // Keys past the sequence or (causal) past the row are hidden. Only the
  // tiles that hold such keys for this warp's rows (the diagonal, the
  // last tile) pay for the comparisons: the others skip them.
  Value hides;
  if (p.causal)
    hides = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                  gb.add(firstKey, gb.i32(t.blockN - 1)),
                                  gb.add(mStart, warpRow));
  if (ragged) {
    Value last = gb.eq(tile, gb.i32(p.sk / t.blockN));
    hides =
        hides ? arith::OrIOp::create(b, loc, hides, last).getResult() : last;
  }
  SmallVector<Type> types(s.size(), b.getF32Type());
  auto masked = scf::IfOp::create(b, loc, types, hides, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&masked.getThenRegion().front());
    SmallVector<Value> hidden(s);
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = rowOf(i, half);
        for (int64_t j = 0; j < sTiles; ++j)
          for (int64_t e = 0; e < 2; ++e) {
            Value &x = hidden[(i * sTiles + j) * 4 + half * 2 + e];
            Value col = colOf(j, e);
            Value hide;
            if (p.causal)
              hide = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                           col, row);
            if (ragged) {
              Value outside = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::uge, col, gb.i32(p.sk));
              hide =
                  hide ? arith::OrIOp::create(b, loc, hide, outside).getResult()
                       : outside;
            }
            x = arith::SelectOp::create(b, loc, hide, minusInfinity, x);
          }
      }
    scf::YieldOp::create(b, loc, hidden);
    b.setInsertionPointToStart(&masked.getElseRegion().front());
    scf::YieldOp::create(b, loc, s);
  }
  s.assign(masked.getResults().begin(), masked.getResults().end());
}

Value AttentionKernel::wgmmaBatch(Value acc, int64_t n, int64_t k, bool bKMajor,
                                  llvm::function_ref<Value(int64_t)> aAt,
                                  llvm::function_ref<Value(int64_t)> bAt,
                                  bool wait) {
  NVVM::WGMMATypes type =
      p.elementType.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < k; kk += 16)
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.getType(), acc, aAt(kk), bAt(kk),
        NVVM::MMAShapeAttr::get(b.getContext(), 64, n, 16), type, type,
        NVVM::WGMMATypes::f32,
        // A poison accumulator is not read: the first step overwrites it
        // (no zeros to move into the registers under the tensor cores).
        kk == 0 && isa_and_nonnull<LLVM::PoisonOp>(acc.getDefiningOp())
            ? NVVM::WGMMAScaleOut::zero
            : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::MMAIntOverflowAttr());
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  if (wait)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  return acc;
}

/// An LLVM struct of `count` f32 (a wgmma accumulator).
static Type accumulatorType(OpBuilder &b, int64_t count) {
  return LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(count, b.getF32Type()));
}

SmallVector<Value> AttentionKernel::fencedFields(Value acc) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  const int64_t count = type.getBody().size();
  SmallVector<Value> fields;
  for (int64_t i = 0; i < count; ++i)
    fields.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  // "=f" outputs tied to the inputs: every field passes through the asm,
  // which has side effects and so stays after the wait before it.
  std::string constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + (i + 1 < count ? "," : "");
  Value fenced = LLVM::InlineAsmOp::create(
                     b, loc, type, fields, "", constraints,
                     /*has_side_effects=*/true,
                     /*is_align_stack=*/false, LLVM::TailCallKind::None,
                     LLVM::AsmDialectAttr(), ArrayAttr())
                     .getResult(0);
  for (int64_t i = 0; i < count; ++i)
    fields[i] = LLVM::ExtractValueOp::create(b, loc, fenced, i);
  return fields;
}

Value AttentionKernel::toStruct(ArrayRef<Value> values) {
  Value acc = LLVM::PoisonOp::create(b, loc, accumulatorType(b, values.size()));
  for (auto [i, value] : llvm::enumerate(values))
    acc = LLVM::InsertValueOp::create(b, loc, acc, value, i);
  return acc;
}

Value AttentionKernel::issueScores(Value kTile, bool wait) {
  // Q rows of this warpgroup (64 from 64 wg) and the K tile, both K-major
  // panels of 64 columns: a K step of 16 is 32 bytes along a panel's rows.
  Value warpgroup = gb.divu(thread, 128);
  Value base = sharedBase();
  Value qRows = gb.add(base, gb.mul(warpgroup, gb.i32(64 * 128)));
  Value kStart = gb.add(base, kTile);
  auto kMajor = [&](Value start, int64_t rows, int64_t kk) {
    return gemm::wgmmaDescriptor(
        gb, gb.add(start, gb.i32((kk / 64) * rows * 128 + (kk % 64) * 2)), 16,
        1024);
  };
  Value acc = LLVM::PoisonOp::create(b, loc, accumulatorType(b, t.blockN / 2));
  return wgmmaBatch(
      acc, t.blockN, p.d, /*bKMajor=*/true,
      [&](int64_t kk) { return kMajor(qRows, t.blockM, kk); },
      [&](int64_t kk) { return kMajor(kStart, t.blockN, kk); }, wait);
}

SmallVector<Value> AttentionKernel::scoresWarpgroup(Value stage) {
  Value kTile = gb.add(gb.i32(qBytes), gb.mul(stage, gb.i32(stageBytes)));
  Value acc = issueScores(kTile, /*wait=*/true);
  SmallVector<Value> s;
  for (int64_t i = 0; i < t.blockN / 2; ++i)
    s.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return s;
}

void AttentionKernel::storeProbabilities(ArrayRef<Value> probabilities,
                                         Value pTile, Value barrier) {
  // Warp w of the warpgroup holds rows 16 (w % 4) .. + 15 of its P.
  Value warpRows = gb.mul(gb.remu(gb.divu(thread, 32), 4), gb.i32(16));
  for (int64_t j = 0; j < sTiles; ++j)
    for (int64_t half = 0; half < 2; ++half) {
      const int64_t first = j * 4 + half * 2;
      Value word = kb.packLanes(
          {probabilities[first], probabilities[first + 1]}, p.elementType);
      Value row = gb.add(warpRows, gb.add(group8, gb.i32(half * 8)));
      Value col = gb.add(gb.i32(j * 8), gb.mul(quad, gb.i32(2)));
      Value offset = gb.add(pTile, tileOffset(row, col, 64, t.blockN));
      LLVM::StoreOp::create(b, loc, word, gb.sharedPointer(smem, offset), 4);
    }
  // The stores reach the tensor cores through the async proxy; the
  // warpgroup's own barrier (128 threads) publishes them without holding
  // up the other warpgroup.
  gb.fenceAsyncProxy();
  NVVM::BarrierOp::create(b, loc, TypeRange{}, barrier, gb.i32(128), {},
                          Value());
}

Value AttentionKernel::issueAccumulate(Value o, Value pTile, Value vTile,
                                       bool wait) {
  Value base = sharedBase();
  Value pStart = gb.add(base, pTile);
  // V is [keys, Dv], N-major: panels of 64 Dv columns, BN rows of 128
  // bytes each; a K step of 16 keys is 16 rows.
  Value vStart = gb.add(base, vTile);
  return wgmmaBatch(
      o, p.dv, t.blockN, /*bKMajor=*/false,
      [&](int64_t kk) {
        return gemm::wgmmaDescriptor(
            gb, gb.add(pStart, gb.i32((kk / 64) * 64 * 128 + (kk % 64) * 2)),
            16, 1024);
      },
      [&](int64_t kk) {
        return gemm::wgmmaDescriptor(gb, gb.add(vStart, gb.i32(kk * 128)),
                                     t.blockN * 128, 1024);
      },
      wait);
}

SmallVector<Value>
AttentionKernel::packProbabilities(ArrayRef<Value> probabilities) {
  // Keys 16 kk .. 16 kk + 15 are n8 tiles 2 kk and 2 kk + 1 of the
  // fragment: rows g and g + 8 of each, in pairs (as mma.sync's A).
  SmallVector<Value> words;
  for (int64_t kk = 0; kk < t.blockN / 16; ++kk)
    for (int64_t tile : {2 * kk, 2 * kk + 1})
      for (int64_t half = 0; half < 2; ++half) {
        const int64_t first = tile * 4 + half * 2;
        words.push_back(kb.packLanes(
            {probabilities[first], probabilities[first + 1]}, p.elementType));
      }
  return words;
}

void AttentionKernel::keepAlive(ArrayRef<Value> values) {
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += i ? ",r" : "r";
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, values, "", constraints,
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false, LLVM::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

Value AttentionKernel::issueAccumulateFromRegisters(Value o,
                                                    ArrayRef<Value> words,
                                                    Value vTile) {
  // MLIR's wgmma op takes A from shared memory only: the register form
  // is written out (m64nDvk16, A as 4 words, V N-major: trans-b 1).
  auto type = cast<LLVM::LLVMStructType>(o.getType());
  const int64_t n = type.getBody().size();
  const char *element = p.elementType.isF16() ? "f16" : "bf16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(p.dv) + "k16.f32." + element + "." +
                     element + " {";
  for (int64_t i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  // Operands: the n outputs, the n inputs tied to them, the words, the
  // descriptor.
  text += "}, {$" + std::to_string(2 * n) + ", $" + std::to_string(2 * n + 1) +
          ", $" + std::to_string(2 * n + 2) + ", $" +
          std::to_string(2 * n + 3) + "}, $" + std::to_string(2 * n + 4) +
          ", p, 1, 1, 1;\n}";
  std::string constraints;
  for (int64_t i = 0; i < n; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < n; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  Value vStart = gb.add(sharedBase(), vTile);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < t.blockN / 16; ++kk) {
    SmallVector<Value> operands;
    for (int64_t i = 0; i < n; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, o, i));
    llvm::append_range(operands, words.slice(kk * 4, 4));
    // 16 keys are 16 rows of 128 bytes of each V panel.
    operands.push_back(gemm::wgmmaDescriptor(
        gb, gb.add(vStart, gb.i32(kk * 16 * 128)), t.blockN * 128, 1024));
    o = LLVM::InlineAsmOp::create(b, loc, type, operands, text, constraints,
                                  /*has_side_effects=*/true,
                                  /*is_align_stack=*/false,
                                  LLVM::TailCallKind::None,
                                  LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return o;
}

void AttentionKernel::accumulateWarpgroup(ArrayRef<Value> probabilities,
                                          Value stage, SmallVector<Value> &o) {
  Value warpgroup = gb.divu(thread, 128);
  Value pTile = gb.add(gb.i32(qBytes + 2 * stageBytes),
                       gb.mul(warpgroup, gb.i32(pBytes)));
  storeProbabilities(probabilities, pTile, gb.add(gb.i32(1), warpgroup));
  Value vTile =
      gb.add(gb.i32(qBytes + kBytes), gb.mul(stage, gb.i32(stageBytes)));
  Value acc = issueAccumulate(toStruct(o), pTile, vTile, /*wait=*/true);
  for (int64_t i = 0; i < p.dv / 2; ++i)
    o[i] = LLVM::ExtractValueOp::create(b, loc, acc, i);
}

void AttentionKernel::accumulate(ArrayRef<Value> probabilities, Value stage,
                                 SmallVector<Value> &o) {
  Value vTile =
      gb.add(gb.i32(qBytes + kBytes), gb.mul(stage, gb.i32(stageBytes)));
  for (int64_t kk = 0; kk < t.blockN / 16; ++kk) {
    // The A fragment of keys 16 kk .. 16 kk + 15: the S fragments of n8
    // tiles 2 kk and 2 kk + 1, rows g and g + 8, in pairs.
    SmallVector<SmallVector<Value>> a;
    for (int64_t i = 0; i < mTiles; ++i) {
      auto pair = [&](int64_t tile, int64_t half) {
        const int64_t first = (i * sTiles + tile) * 4 + half * 2;
        return kb.packLanes({probabilities[first], probabilities[first + 1]},
                            p.elementType);
      };
      a.push_back({pair(2 * kk, 0), pair(2 * kk, 1), pair(2 * kk + 1, 0),
                   pair(2 * kk + 1, 1)});
    }
    for (int64_t j = 0; j < oTiles; j += 2) {
      Value row = gb.add(gb.i32(kk * 16),
                         gb.add(gb.mul(matrixLow, gb.i32(8)), rowInMatrix));
      Value col = gb.add(gb.i32(j * 8), gb.mul(matrixHigh, gb.i32(8)));
      mmaTilePair(a,
                  gb.loadMatrices(
                      smem, gb.add(vTile, gb.swizzled(row, col, p.dv)), true),
                  o, oTiles, j);
    }
  }
}

void AttentionKernel::emitPreamble(Value threadId, Value laneId,
                                   Value firstRow) {
  thread = threadId;
  lane = laneId;
  warpRow = firstRow;
  group8 = gb.divu(lane, 4);
  quad = gb.remu(lane, 4);
  Value matrix = gb.divu(lane, 8);
  matrixLow = gb.remu(matrix, 2);
  matrixHigh = gb.divu(matrix, 2);
  rowInMatrix = gb.remu(lane, 8);

  blockId = gb.toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  // With split keys, a query tile's splits are neighbours in the grid.
  if (!t.persistentBlocks)
    placeQueryTile(t.keySplits > 1 ? gb.divu(blockId, t.keySplits)
                                   : Value(blockId));
}

void AttentionKernel::placeQueryTile(Value tile) {
  queryTile = tile;
  // Section by section of t.headsPerSection (batch, head) pairs (their K
  // and V stay in the L2 while their blocks run), the longest rows (the
  // last query tiles, under a causal mask) first within a section.
  const int64_t tilesM = llvm::divideCeil(p.sq, t.blockM);
  const int64_t section = t.headsPerSection;
  Value within = gb.remu(queryTile, section * tilesM);
  bh = gb.add(gb.mul(gb.divu(queryTile, section * tilesM), gb.i32(section)),
              gb.remu(within, section));
  Value mTile = arith::SubIOp::create(b, loc, gb.i32(tilesM - 1),
                                      gb.divu(within, section));
  mStart = gb.mul(mTile, gb.i32(t.blockM));
  batchIndex = gb.divu(bh, p.heads);
  headIndex = gb.remu(bh, p.heads);
  kvHead = gb.divu(headIndex, p.heads / p.kvHeads);
  qBase = baseOf(p.q, batchIndex, headIndex);
  kBase = baseOf(p.k, batchIndex, kvHead);
  vBase = baseOf(p.v, batchIndex, kvHead);

  // Key tiles this block visits: all, or under a causal mask those up to
  // its last row.
  keyTiles = gb.i32(llvm::divideCeil(p.sk, t.blockN));
  if (p.causal)
    keyTiles = arith::MinUIOp::create(
        b, loc, keyTiles,
        gb.divu(gb.add(mStart, gb.i32(t.blockM + t.blockN - 1)), t.blockN));
  firstTile = gb.i32(0);
  if (t.keySplits > 1) {
    // Split s of S visits tiles [s n / S, (s + 1) n / S): as even as the
    // n tiles allow, and none is empty while n >= S.
    Value split = gb.remu(blockId, t.keySplits);
    Value all = keyTiles;
    firstTile = gb.divu(gb.mul(split, all), t.keySplits);
    keyTiles = gb.divu(gb.mul(gb.add(split, gb.i32(1)), all), t.keySplits);
  }
}

LogicalResult
AttentionKernel::forEachQueryTile(function_ref<LogicalResult()> body) {
  if (!t.persistentBlocks)
    return body();
  // Query tiles blockIdx, blockIdx + gridDim, ...: the grid's order, so
  // the blocks at work at once still take neighbouring tiles.
  const int64_t tiles = countQueryTiles(p, t);
  Value grid = gb.toI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  auto toIndex = [&](Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  };
  auto loop =
      scf::ForOp::create(b, loc, toIndex(blockId), toIndex(gb.i32(tiles)),
                         toIndex(grid), ValueRange{gb.i32(0), gb.i32(0)});
  OpBuilder::InsertionGuard guard(b);
  Block *loopBody = openLoopBody(b, loop);
  Value tile = gb.toI32(loop.getInductionVar());
  ringBase = loopBody->getArgument(1);
  Value count = loopBody->getArgument(2);
  placeQueryTile(tile);
  qPhase = gb.remu(count, 2);
  earlierQueryTiles = gb.ne(count, gb.i32(0));
  moreQueryTiles = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         gb.add(tile, grid), gb.i32(tiles));
  if (failed(body()))
    return failure();
  // The ring positions this tile's key tiles took.
  Value used = arith::SubIOp::create(b, loc, keyTiles, firstTile);
  scf::YieldOp::create(
      b, loc, ValueRange{gb.add(ringBase, used), gb.add(count, gb.i32(1))});
  return success();
}

/// `values` combined pairwise (a tree: a dependency chain of log2 n
/// operations rather than n).
template <typename Combine>
static Value combineTree(SmallVector<Value> values, Combine combine) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

SmallVector<Value> AttentionKernel::onlineSoftmax(SmallVector<Value> &s,
                                                  SmallVector<Value> &maxima,
                                                  SmallVector<Value> &sums) {
  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  // With the scale folded (logits), the maxima are of the raw scores and
  // each exponent is one fma: 2^(x c - m c).
  const bool folded = foldsScale();
  Value scale = f32(p.scale * kLog2e);
  auto exponent = [&](Value x, Value reference, Value scaledReference,
                      bool polynomial = false) {
    Value power =
        folded
            ? math::FmaOp::create(b, loc, x, scale, scaledReference).getResult()
            : fsub(x, reference);
    return polynomial ? exp2Polynomial(power) : exp2(power);
  };
  const int64_t every = polynomialExpEvery();
  SmallVector<Value> corrections;
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      const int64_t r = i * 2 + half;
      auto element = [&](int64_t j, int64_t e) -> Value & {
        return s[(i * sTiles + j) * 4 + half * 2 + e];
      };
      SmallVector<Value> row;
      for (int64_t j = 0; j < sTiles; ++j)
        for (int64_t e = 0; e < 2; ++e)
          row.push_back(element(j, e));
      Value top =
          combineTree(row, [&](Value x, Value y) { return fmax(x, y); });
      top = fmax(maxima[r], quadReduce(top, /*sum=*/false));
      // A row with no visible key yet keeps a maximum of -inf; its
      // exponentials are taken against 0 (all zeros, no NaN).
      Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          top, minusInfinity);
      Value reference = arith::SelectOp::create(b, loc, empty, f32(0.0), top);
      Value scaledReference =
          folded ? fmul(reference, f32(-p.scale * kLog2e)) : Value();
      Value correction = exponent(maxima[r], reference, scaledReference);
      for (int64_t j = 0; j < sTiles; ++j)
        for (int64_t e = 0; e < 2; ++e) {
          Value &x = element(j, e);
          x = exponent(x, reference, scaledReference,
                       every && (j * 2 + e) % every == every - 1);
          row[j * 2 + e] = x;
        }
      Value sum =
          combineTree(row, [&](Value x, Value y) { return fadd(x, y); });
      sums[r] = math::FmaOp::create(b, loc, sums[r], correction, sum);
      maxima[r] = top;
      corrections.push_back(correction);
    }
  return corrections;
}

void AttentionKernel::scaleRows(SmallVector<Value> &o,
                                ArrayRef<Value> corrections) {
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half)
      scaleRow(o, i, half, corrections[i * 2 + half]);
}

void AttentionKernel::normalize(SmallVector<Value> &o, ValueRange sums,
                                bool rowSums) {
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      Value sum = rowSums ? sums[i * 2 + half]
                          : quadReduce(sums[i * 2 + half], /*sum=*/true);
      Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, sum,
                                         f32(0.0));
      Value inverse = arith::SelectOp::create(
          b, loc, none, f32(0.0), arith::DivFOp::create(b, loc, f32(1.0), sum));
      scaleRow(o, i, half, inverse);
    }
}

scf::ForOp AttentionKernel::openKeyLoop(Value first, ValueRange init,
                                        Value &tile, ValueRange &carried) {
  auto loop = scf::ForOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, b.getIndexType(), first),
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), keyTiles),
      arith::ConstantIndexOp::create(b, loc, 1), init);
  Block *body = openLoopBody(b, loop);
  tile = gb.toI32(loop.getInductionVar());
  carried = body->getArguments().drop_front();
  return loop;
}

SmallVector<Value> AttentionKernel::emitMainLoop() {
  auto copyKeys = [&](Value tile, Value stage) {
    Value first = gb.mul(tile, gb.i32(t.blockN));
    Value at = gb.add(gb.i32(qBytes), gb.mul(stage, gb.i32(stageBytes)));
    copyTile(p.k, kBase, first, t.blockN, p.d, p.sk, at);
    copyTile(p.v, vBase, first, t.blockN, p.dv, p.sk,
             gb.add(at, gb.i32(kBytes)));
  };
  copyTile(p.q, qBase, mStart, t.blockM, p.d, p.sq, gb.i32(0));
  // Past the sequence (an empty split) the copies are zeros.
  copyKeys(firstTile, gb.remu(firstTile, 2));
  NVVM::CpAsyncCommitGroupOp::create(b, loc);

  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init(mTiles * oTiles * 4, f32(0.0));
  // Per row (m-tile, half): the running maximum and sum.
  const int64_t rows = mTiles * 2;
  init.append(rows, minusInfinity);
  init.append(rows, f32(0.0));
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(b);
    Value tile;
    ValueRange carried;
    loop = openKeyLoop(firstTile, init, tile, carried);
    SmallVector<Value> o(carried.take_front(mTiles * oTiles * 4));
    SmallVector<Value> maxima(carried.slice(mTiles * oTiles * 4, rows));
    SmallVector<Value> sums(carried.take_back(rows));

    // This tile has landed and every warp is done with the other stage:
    // the next tile's copies go there while this one is computed on.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    // wgmma reads shared memory through the async proxy.
    if (t.warpgroup)
      gb.fenceAsyncProxy();
    gpu::BarrierOp::create(b, loc);
    Value next = gb.add(tile, gb.i32(1));
    {
      auto exists = scf::IfOp::create(b, loc, gb.lt(next, keyTiles),
                                      /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&exists.getThenRegion().front());
      copyKeys(next, gb.remu(next, 2));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    Value stage = gb.remu(tile, 2);

    SmallVector<Value> s = t.warpgroup ? scoresWarpgroup(stage) : scores(stage);
    logits(s, tile);
    scaleRows(o, onlineSoftmax(s, maxima, sums));
    if (t.warpgroup)
      accumulateWarpgroup(s, stage, o);
    else
      accumulate(s, stage, o);
    SmallVector<Value> yielded(o);
    llvm::append_range(yielded, maxima);
    llvm::append_range(yielded, sums);
    scf::YieldOp::create(b, loc, yielded);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  ValueRange results = loop.getResults();
  SmallVector<Value> o(results.take_front(mTiles * oTiles * 4));
  if (t.keySplits > 1)
    return combineKeySplits(o, results.slice(mTiles * oTiles * 4, rows),
                            results.take_back(rows));
  normalize(o, results.take_back(rows));
  return o;
}

LogicalResult emitAttentionKernel(GroupOp group, AttentionProblem &problem,
                                  const AttentionTiling &t,
                                  const LaunchConfig &config,
                                  gpu::GPUModuleOp module, StringRef name,
                                  const EmitContext &context) {
  Type indexType = indexTypeForBuffers(group);
  OpBuilder b(group.getContext());
  Location loc = group.getLoc();
  // After the buffers, with TMA: the tensor maps of q, k and v, one per
  // piece; then with split keys: the workspace and the counters.
  const int64_t maps = t.tma ? countAttentionPieces(problem) : 0;
  const unsigned firstExtra = group.getNumOperands() + group.getNumResults();
  const bool split = t.keySplits > 1;
  gpu::GPUFuncOp func = createKernel(b, group, module, name, config.block,
                                     maps + (split ? 2 : 0));
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  kb.setStrictNumerics(context.options.strictNumerics());
  Value smem = dynamicSharedMemory(b, loc, module);

  // The output as the GEMM epilogue sees it: a [B, H] batch of Sq x Dv
  // tiles of BM rows, each warp holding rowsPerWarp of them in m16n8
  // fragments.
  MatmulTiling tiling;
  tiling.instruction = MmaInstruction::Sync;
  tiling.blockM = t.blockM;
  tiling.blockN = problem.dv;
  tiling.blockK = 16;
  tiling.warpsM = t.warps;
  tiling.warpsN = 1;
  tiling.stages = 2;
  gemm::GemmProblem output;
  output.contraction = problem.op;
  output.elementType = problem.elementType;
  output.elementBytes = getElementByteSize(problem.elementType);
  output.output = problem.op.getType();
  output.batchShape = {problem.batch, problem.heads};
  output.shape = getGemmShape(problem.op);
  GemmBuilder gb(b, loc, kb, tiling, problem.elementType);
  auto schedule = GemmScheduleAttr::get(
      b.getContext(), GemmScheduleKind::mma_sync, GemmOperandFeed::cp_async);
  gemm::GemmKernelEmission epilogue(group, output, tiling, schedule, b, kb, gb,
                                    entry, smem);
  epilogue.emitPreamble();

  AttentionKernel kernel(problem, t, b, kb, gb, entry, smem);
  kernel.emitPreamble(epilogue.thread, epilogue.lane, epilogue.warpRow);
  if (split) {
    kernel.workspace = entry.getArgument(firstExtra + maps);
    kernel.counters = entry.getArgument(firstExtra + maps + 1);
  }
  // The output of the query tile in flight through the epilogue.
  auto storeOutput = [&](SmallVector<Value> acc) {
    gemm::MainLoop loop;
    loop.acc = std::move(acc);
    loop.current.tileM = kernel.mStart;
    loop.current.tileN = gb.i32(0);
    loop.current.batch = kernel.bh;
    loop.current.batchIndices =
        kb.decompose(gb.toIndexType(kernel.bh), output.batchShape);
    return gemm::emitGemmEpilogue(epilogue, loop, context.options.vectorStores);
  };
  if (t.tma) {
    kernel.initBarriers();
    // Roles on a warp index ptxas sees as uniform (a shuffle from lane 0):
    // the producer warpgroup is the last.
    Value uniformWarp = NVVM::ShflOp::create(
        b, loc, b.getI32Type(), gb.i32(-1), epilogue.warp, gb.i32(0),
        gb.i32(0x1f), NVVM::ShflKind::idx, UnitAttr());
    const int64_t consumerWarps = t.warps;
    auto roles = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, uniformWarp,
                              gb.i32(consumerWarps)),
        /*withElse=*/true);
    // With two or three consumer warpgroups the registers move to them
    // from the producer (GemmBuilder::setMaxRegisters): 40 and 232 a
    // thread of 384, 24 and 160 of 512 (both 64512 of the SM's 65536).
    constexpr int32_t kProducerRegistersOfFour = 24,
                      kConsumerRegistersOfFour = 160;
    const bool three = t.consumers() == 3;
    auto setMaxRegisters = [&](int32_t count,
                               NVVM::SetMaxRegisterAction action) {
      if (t.consumers() >= 2)
        gb.setMaxRegisters(count, action);
    };
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(roles.thenBlock()->getTerminator());
      setMaxRegisters(three ? kProducerRegistersOfFour
                            : GemmBuilder::kProducerRegisters,
                      NVVM::SetMaxRegisterAction::decrease);
      auto issuer = scf::IfOp::create(
          b, loc, gb.eq(epilogue.thread, gb.i32(consumerWarps * 32)),
          /*withElse=*/false);
      b.setInsertionPoint(issuer.thenBlock()->getTerminator());
      SmallVector<Value> mapArguments;
      for (int64_t i = 0; i < maps; ++i)
        mapArguments.push_back(entry.getArgument(firstExtra + i));
      (void)kernel.forEachQueryTile([&] {
        kernel.emitProducer(mapArguments);
        return success();
      });
    }
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    setMaxRegisters(three ? kConsumerRegistersOfFour
                          : GemmBuilder::kConsumerRegisters,
                    NVVM::SetMaxRegisterAction::increase);
    Value warpgroup = gb.divu(uniformWarp, 4);
    return kernel.forEachQueryTile(
        [&] { return storeOutput(kernel.emitConsumer(warpgroup)); });
  }
  return storeOutput(kernel.emitMainLoop());
}

} // namespace opfuse::attention
