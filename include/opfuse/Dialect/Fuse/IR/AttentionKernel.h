//===- AttentionKernel.h - What the fused attention kernel computes -*- C++
//-*-===//
//
// The fused attention kernel (one flash-style kernel: both products on
// tensor cores around an online softmax) runs a fuse.attention whose
// operands it can hold in its tiles. fuse-decompose keeps those for fusion
// and writes the others as two matmuls around a softmax; the attention
// emitter refuses nothing this predicate accepts.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_ATTENTIONKERNEL_H
#define OPFUSE_DIALECT_FUSE_IR_ATTENTIONKERNEL_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include <optional>
#include <string>

namespace opfuse::fuse {

/// The largest head dimension (D and Dv) the fused kernel holds: its
/// output rows stay in registers.
constexpr int64_t kMaxAttentionHeadDim = 128;

/// Why the fused attention kernel cannot compute `op`, or nothing when it
/// can: bf16 or f16 operands, head dimensions D and Dv multiples of 16 up
/// to kMaxAttentionHeadDim, and no empty dimension.
std::optional<std::string> whyNoAttentionKernel(AttentionOp op);
/// The same for an attention of q, k and v of these types (before one is
/// built), each [B, H, S, D] or with fewer leading dimensions.
std::optional<std::string> whyNoAttentionKernel(mlir::RankedTensorType q,
                                                mlir::RankedTensorType k,
                                                mlir::RankedTensorType v);

/// Whether the TMA-fed kernel's blocks should persist, each taking query
/// tiles in turn so that one tile's fill and drain overlap the next (the
/// tiling's choice, and the cost model's per-block term): without a causal
/// mask, whose tiles of unequal rows a fixed turn order leaves unbalanced,
/// without an additive mask, and for at most kMaxPersistentAttentionKeys
/// keys, where a tile's fill and drain weigh most. On the H200
/// (docs/benchmarks.md, 2026-12-04) persistence was 2-15% faster at 512 to
/// 4k keys, level to 4% slower at 16k, 9-35% slower under a causal mask,
/// and 8-12% slower with an additive mask at head dim 128 (level at 64).
constexpr int64_t kMaxPersistentAttentionKeys = 4096;
constexpr bool persistentAttentionPays(int64_t sk, bool causal, bool masked) {
  return !causal && !masked && sk <= kMaxPersistentAttentionKeys;
}

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_ATTENTIONKERNEL_H
