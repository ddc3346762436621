//===- AttentionCopies.cpp - Q, K and V tiles copied by every thread ------===//
//
// The cp.async copies of the attention kernel's mma.sync and cp.async-fed
// wgmma forms: where the block's (batch, head) starts in each piece of q,
// k and v, and a tile of rows copied into swizzled shared memory, each row
// from the piece it lies in (a KV cache joined with new rows is read where
// its pieces lie), rows past the sequence as zeros.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

using namespace mlir;

namespace opfuse::attention {

SmallVector<Value> AttentionKernel::baseOf(const AttentionOperand &operand,
                                           Value batch, Value head) {
  SmallVector<Value> bases;
  for (const AttentionPiece &piece : operand.pieces) {
    Value offset = kb.constant(piece.offset);
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, gb.toIndexType(batch),
                              kb.constant(piece.strides[0])));
    bases.push_back(arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, gb.toIndexType(head),
                              kb.constant(piece.strides[1]))));
  }
  return bases;
}

Value AttentionKernel::sharedBase() {
  return arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smem));
}

Value AttentionKernel::tileOffset(Value row, Value col, int64_t rows,
                                  int64_t width) {
  if (!t.warpgroup)
    return gb.swizzled(row, col, width);
  return gb.add(gb.mul(gb.divu(col, 64), gb.i32(rows * 128)),
                gb.swizzled(row, gb.remu(col, 64), 64));
}

void AttentionKernel::copyTile(const AttentionOperand &operand,
                               ArrayRef<Value> bases, Value first, int64_t rows,
                               int64_t width, int64_t limit, Value smemOffset) {
  const int64_t chunk = operand.chunk;
  const int64_t chunksPerRow = width / chunk, chunks = rows * chunksPerRow;
  const int64_t threads = t.threads(), bytes = chunk * elementBytes;
  for (int64_t start = 0; start < chunks; start += threads) {
    OpBuilder::InsertionGuard guard(b);
    Value q = gb.add(thread, gb.i32(start));
    if (start + threads > chunks) {
      auto inTile = scf::IfOp::create(b, loc, gb.lt(q, gb.i32(chunks)),
                                      /*withElse=*/false);
      b.setInsertionPointToStart(&inTile.getThenRegion().front());
    }
    Value row = gb.divu(q, chunksPerRow);
    Value col = gb.mul(gb.remu(q, chunksPerRow), gb.i32(chunk));
    Value globalRow = gb.add(first, row);
    Value valid = gb.lt(globalRow, gb.i32(limit));
    // The row's address in the last piece that starts at or before it;
    // rows past the sequence copy nothing (zeros) from a valid address.
    Value source;
    for (auto [piece, base] : llvm::zip(operand.pieces, bases)) {
      Value local =
          arith::SubIOp::create(b, loc, globalRow, gb.i32(piece.firstRow));
      Value offset = arith::AddIOp::create(
          b, loc, base,
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, gb.toIndexType(local),
                                    kb.constant(piece.strides[2])),
              gb.toIndexType(col)));
      Value inPiece = valid;
      if (piece.firstRow > 0)
        inPiece = arith::AndIOp::create(
            b, loc, valid,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, globalRow,
                                  gb.i32(piece.firstRow)));
      Value address =
          kb.pointerAt(entry.getArgument(piece.input), p.elementType,
                       arith::SelectOp::create(b, loc, inPiece, offset, base));
      source = source
                   ? arith::SelectOp::create(b, loc, inPiece, address, source)
                   : address;
    }
    Value target = gb.sharedPointer(
        smem, gb.add(smemOffset, tileOffset(row, col, rows, width)));
    Value sourceBytes =
        arith::SelectOp::create(b, loc, valid, gb.i32(bytes), gb.i32(0));
    NVVM::CpAsyncOp::create(b, loc, target, source, bytes,
                            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA,
                            sourceBytes);
  }
}

} // namespace opfuse::attention
