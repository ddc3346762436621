//===- AttentionEmission.h - The fused attention kernel ---------*- C++ -*-===//
//
// One flash-style kernel per fuse.attention group: a block owns BM query
// rows of one (batch, head), streams the keys and values through shared
// memory BN at a time, computes S = Q Kᵀ and O += P V on tensor cores
// (wgmma on sm_90, mma.sync m16n8k16 elsewhere and for head dims that are
// not multiples of 64) and keeps the softmax online in registers, so no
// score ever reaches memory. The output goes through the GEMM epilogue
// (GemmEpilogue.cpp): the group's elementwise ops and the store layout
// that merges the heads.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONEMISSION_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONEMISSION_H

#include "KernelBuilder.h"

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include <optional>
#include <string>

namespace opfuse::attention {

/// How the kernel tiles the work: BM query rows per block (16 or 32 rows
/// per warp), BN keys per step of the K/V stream, `warps` warps that
/// compute. With `warpgroup` (sm_90) both products are wgmma from shared
/// memory, one warpgroup per 64 query rows; with `tma` as well, an extra
/// producer warpgroup streams Q, K and V by TMA through `stages` stages
/// and the compute warpgroups take turns at the tensor cores. With
/// `keySplits` > 1 the keys of each query tile are
/// split among that many blocks, whose partial outputs the last to finish
/// combines (flash-decoding: a decode step's few query tiles would leave
/// most SMs idle). With `persistentBlocks` (TMA-fed tilings) the grid is
/// that many blocks, each taking query tiles in turn (grid-stride), so a
/// block's next Q and K/V tiles load while it finishes the last one.
/// The most blocks one query tile's keys are split among.
constexpr int64_t kMaxKeySplits = 64;

/// Query rows of a TMA-fed block with three consumer warpgroups.
constexpr int64_t kThreeConsumerRows = 192;

struct AttentionTiling {
  int64_t blockM = 64, blockN = 64, warps = 4;
  bool warpgroup = false, tma = false;
  int64_t stages = 2;
  int64_t keySplits = 1;
  /// Query tiles run section by section, a section being this many (batch,
  /// head) pairs whose K and V together fit in half the L2: their blocks
  /// read each key tile from HBM once and find it in the L2 after.
  /// Within a section the longest rows (the last query tiles, under a
  /// causal mask) come first.
  int64_t headsPerSection = 1;
  /// Whether blocks persist over several query tiles (TMA-fed tilings
  /// without key splits), and then how many blocks the grid has (0 where
  /// the query tiles are fewer than the GPU's resident blocks: one each).
  bool persistent = false;
  int64_t persistentBlocks = 0;
  int64_t rowsPerWarp() const { return blockM / warps; }
  /// The warpgroups that compute (wgmma tilings).
  int64_t consumers() const { return warps / 4; }
  int64_t threads() const { return warps * 32 + (tma ? 128 : 0); }
  /// BM query rows, a warpgroup per 64 of them (wgmma tilings).
  void setWarpgroupRows(int64_t rows) {
    blockM = rows;
    warps = rows / 16;
  }
};

/// "auto", "BMxBN" (mma.sync: BM 64 or 128 with 4 warps, BN 32, 64 or
/// 128), "wgmma:BMxBN" (BM 64 or 128, a warpgroup per 64 rows; BN 64 or
/// 128) or "tma:BMxBN" (the same fed by a TMA producer warpgroup), each
/// optionally with "/kS" (the keys split among S blocks, 1 to 64) or, for
/// tma tiles, "/persistent" (blocks that loop over query tiles): the
/// tiling, or nothing with the reason in `error`.
std::optional<AttentionTiling> parseAttentionTiling(llvm::StringRef text,
                                                    std::string &error);

/// Rows of q, k or v in memory: the group input they are read from, the
/// element strides of their four dimensions [B, H, S, D] there (the last
/// is 1) and the first element; they are the operand's rows from
/// `firstRow` on.
struct AttentionPiece {
  unsigned input = 0;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> strides;
  int64_t firstRow = 0, rows = 0;
};

/// One of q, k, v: one piece, or (K and V) the pieces a concat along the
/// sequence joins (a KV cache and a decode step's new rows), read where
/// they lie.
struct AttentionOperand {
  llvm::SmallVector<AttentionPiece, 1> pieces;
  /// Elements per cp.async copy: 8, 4 or 2.
  int64_t chunk = 8;
};

/// What one fuse.attention group computes.
struct AttentionProblem {
  fuse::AttentionOp op;
  mlir::Type elementType;
  int64_t batch = 0, heads = 0, kvHeads = 0, sq = 0, sk = 0, d = 0, dv = 0;
  AttentionOperand q, k, v;
  /// The mask's group input and its strides in the [B, H, Sq, Sk] score
  /// space (0 where it broadcasts), when there is one.
  std::optional<unsigned> maskInput;
  InputAccess mask;
  float scale = 1.0f;
  /// c of the soft cap c tanh(s / c); 0 for none.
  double softcap = 0;
  bool causal = false;
};

/// The problem `group` poses, or an error at the op at fault; `why` without
/// a group (fusion's question) is answered by checkAttentionOps.
mlir::FailureOr<AttentionProblem> analyzeAttentionProblem(fuse::GroupOp group);

/// Why `ops` are not one attention kernel, or nothing when they are.
std::optional<std::string>
checkAttentionOps(llvm::ArrayRef<mlir::Operation *> ops);

/// The tiling for `problem` under `option` ("auto" or a tiling) on
/// `target`; "auto" feeds wgmma tiles by TMA when `useTma` and the
/// operands allow it.
AttentionTiling chooseAttentionTiling(const AttentionProblem &problem,
                                      llvm::StringRef option, bool useTma,
                                      const GpuTarget &target);

/// Why the wgmma kernel cannot run `problem`, or nothing when it can (head
/// dimensions multiples of 64: 128-byte rows of the swizzled tiles).
std::optional<std::string>
whyNoWarpgroupAttention(const AttentionProblem &problem);

/// Why the TMA-fed kernel with `blockN` keys a step cannot run `problem`,
/// or nothing when it can (every tensor map's start and strides 16-byte
/// aligned, every piece of a joined K or V starting at a whole key tile).
std::optional<std::string> whyNoTmaAttention(const AttentionProblem &problem,
                                             int64_t blockN);

/// Why `tiling`'s split of the keys cannot run `problem`, or nothing when
/// it can (a TMA-fed split needs a key tile for every split, and no
/// causal mask, which could leave a split none).
std::optional<std::string> whyNoKeySplits(const AttentionProblem &problem,
                                          const AttentionTiling &tiling);

/// Why three consumer warpgroups (kThreeConsumerRows rows) cannot run
/// `problem` with `tiling`, or nothing when they can or are not asked for
/// (head dims up to 64, no key split).
std::optional<std::string> whyNoThreeConsumers(const AttentionProblem &problem,
                                               const AttentionTiling &tiling);

/// Why `tiling`'s persistent blocks cannot run `problem`, or nothing when
/// they can or are not asked for (two or three consumer warpgroups).
std::optional<std::string> whyNoPersistence(const AttentionProblem &problem,
                                            const AttentionTiling &tiling);

/// The pieces of q, k and v together: the tensor maps of a TMA-fed kernel.
int64_t countAttentionPieces(const AttentionProblem &problem);

/// The tensor maps of q, k and v for `tiling` (TMA-fed tilings), in that
/// order, one per piece: [D, S, H, B] innermost first, the head and batch
/// dimensions left out where they have one element, boxes of 64 x BM (q)
/// or 64 x BN rows.
llvm::SmallVector<TensorMapSpec, 3>
attentionTensorMaps(const AttentionProblem &problem,
                    const AttentionTiling &tiling);

/// Shared memory the kernel uses: the Q tile, the stages of K and V, with
/// wgmma a P tile per warpgroup, and with TMA the mbarriers.
int64_t attentionSharedBytes(const AttentionProblem &problem,
                             const AttentionTiling &tiling);

/// The kernel's launch: one block per BM query rows of each (batch, head)
/// and split of the keys, or a persistent tiling's blocks; a split kernel's
/// workspace holds each block's partial output rows (f32, only the rows that
/// exist) and their running maxima and sums, with one counter per query tile.
LaunchConfig attentionLaunch(const AttentionProblem &problem,
                             const AttentionTiling &tiling);

/// Query tiles of `tiling` over every (batch, head): BM rows each.
int64_t countQueryTiles(const AttentionProblem &problem,
                        const AttentionTiling &tiling);

/// Query rows a split kernel's block stores in the workspace: BM, or all
/// of them when the sequence is shorter.
int64_t splitRowsPerBlock(const AttentionProblem &problem,
                          const AttentionTiling &tiling);

/// Emits the kernel `name` for `group` into `module`.
mlir::LogicalResult
emitAttentionKernel(fuse::GroupOp group, AttentionProblem &problem,
                    const AttentionTiling &tiling, const LaunchConfig &config,
                    mlir::gpu::GPUModuleOp module, llvm::StringRef name,
                    const EmitContext &context);

} // namespace opfuse::attention

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONEMISSION_H
