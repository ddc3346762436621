//===- Clustering.h - fuse-elementwise's kernels of one block ----*- C++
//-*-===//
//
// The clusters fuse-elementwise forms in one block before it outlines each
// into a fuse.group: grown from a root through its producers
// (Clustering.cpp), each producer recomputed, kept as an output, fused as a
// GEMM prologue or left out (ClusterProducers.cpp), then sibling kernels
// merged and a GEMM's slices stored by its kernel (ClusterMerging.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_CLUSTERING_H
#define OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_CLUSTERING_H

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <queue>
#include <string>

namespace opfuse::fuse::fusion {

using mlir::ArrayRef;
using mlir::Block;
using mlir::DenseMap;
using mlir::DenseSet;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::Twine;
using mlir::Value;

/// Ops that can join a kernel through their users. A reshape only relabels
/// row-major data: inside a kernel it costs nothing, and outside one it is
/// free too (its result aliases its input), so it never roots a kernel.
/// A reduction joins when the kernel stays one row kernel
/// (opfuse/Dialect/Fuse/IR/RowKernel.h); a matmul when the kernel becomes
/// its epilogue (opfuse/Dialect/Fuse/IR/GemmKernel.h).
bool isFusibleProducer(Operation *op);

/// Ops that start a kernel of their own when no later kernel takes them:
/// data movement too, so that what feeds a transpose or a concat is
/// computed where it is read, and a matmul, so that the views it reads its
/// operands through, and the prologue it may compute A with, join its
/// kernel.
bool isRoot(Operation *op);

struct Cluster {
  Operation *root;
  /// The iteration space: the root's result, or a reduction's input once
  /// the cluster holds one.
  RankedTensorType shape;
  bool hasReduction = false;
  bool hasContraction = false;
  bool hasDataMovement = false;
  llvm::SetVector<Operation *> ops;
  Operation *earliest;
};

/// Builds the clusters of one block.
class Clustering {
public:
  Clustering(Block &block, const opfuse::CostModel &model, bool explain,
             StringRef prologues)
      : block(block), model(model), explain(explain), prologues(prologues) {}

  /// Grows a cluster from every root, latest first, then merges siblings
  /// and moves the slices GEMMs store into their kernels.
  void run();

  SmallVector<Cluster> clusters;
  DenseMap<Operation *, int> clusterOf;

private:
  struct LaterFirst {
    bool operator()(Operation *a, Operation *b) const {
      return a->isBeforeInBlock(b);
    }
  };
  using Worklist =
      std::priority_queue<Operation *, std::vector<Operation *>, LaterFirst>;

  // Growth and the questions it asks (Clustering.cpp).

  /// Queues the producers of `member`, a new op of cluster `k`.
  void expand(Operation *member, int k, Worklist &candidates);

  /// Makes `op` a member of cluster `k`, which then holds a reduction,
  /// a contraction or data movement if `op` is one; an op of a GEMM's
  /// prologue (`inPrologue`: its statistics too) leaves the cluster a GEMM
  /// kernel of its output's shape.
  void add(Operation *op, int k, bool inPrologue = false);

  /// Whether a walk from `starts` (forward through users or backward through
  /// producers) reaches cluster `k`. Another cluster counts as one node: a
  /// walk that touches one of its ops continues from all of them.
  bool reaches(ArrayRef<Operation *> starts, int k, bool forward);

  /// Whether cluster `k` with `extra` added is still a kernel an emitter
  /// of the registry compiles (KernelEmitter.h); `why` says what fails.
  bool emittable(ArrayRef<Operation *> extra, int k, std::string &why);

  /// The registry's answer for `ops` as one kernel.
  opfuse::KernelEmitterRegistry::Selection
  selectEmitter(SmallVector<Operation *> ops);

  /// Whether an emitter of the registry compiles `ops` as one kernel.
  bool accepted(SmallVector<Operation *> ops, std::string &why);

  /// A row reduction outside cluster `k` whose per-row result `producer`
  /// reads (directly, or through smaller elementwise ops) and that cannot
  /// join the cluster with it; null when there is none. Taking `producer`
  /// would split that reduction's epilogue from its kernel.
  Operation *foreignReductionFeeding(Operation *producer, int k);

  /// Whether some op of cluster `to` uses, directly or through other ops,
  /// a result of cluster `from`.
  bool dependsOn(int from, int to);

  /// Whether adding `op` to cluster `k` makes a path leave it and return.
  bool createsCycle(Operation *op, int k);

  /// What cluster `k` does as it stands: its ops' FLOPs, and the bytes of
  /// the values that cross its boundary (read once, or written because a
  /// user outside needs them).
  opfuse::Work clusterWork(int k);

  /// Bytes of `op`'s operands the cluster does not read or compute yet.
  int64_t newInputBytes(Operation *op, int k);

  void remark(Operation *producer, int k,
              const opfuse::PassStatistic &statistic, const Twine &message);

  /// Remarks on the edges where kernel `k` must stop because the op on the
  /// other side is not elementwise: `op` is either a producer feeding the
  /// kernel or the kernel's root, whose non-elementwise users read it.
  void explainBoundaries(Operation *op, int k, bool asProducer);

  /// Whether the reshape `producer` may join cluster `k`. On the way to a
  /// GEMM operand it is part of the strided view the GEMM reads through; in
  /// a kernel that moves data every value is evaluated at its own index
  /// (IndexedEvaluator.h), so it is an index map of any size; elsewhere it
  /// relabels the kernel's linear index and must span the whole space.
  bool reshapeJoins(Operation *producer, int k, bool allUsersInside);

  bool inCluster(Operation *op, int k) const {
    auto it = clusterOf.find(op);
    return it != clusterOf.end() && it->second == k;
  }

  // What becomes of each producer (ClusterProducers.cpp).

  /// Decides what becomes of `producer`, a fusible op feeding cluster `k`.
  void consider(Operation *producer, int k, Worklist &worklist);
  /// Reshapes `consider` met while cluster `k` moved no data yet; asked
  /// again once its worklist is empty.
  SmallVector<Operation *> deferredReshapes;
  void remarkReshapeLeftOut(Operation *reshape, int k);
  /// The bytes that would cross memory above `producer` if it joined row
  /// cluster `k`: the cheapest cuts of the elementwise chain above it,
  /// where a view the kernel cannot read in place (a slice, concat or
  /// gather) counts whole; `views` counts those views.
  int64_t bytesThroughMemoryIfJoined(Operation *producer, int k,
                                     int64_t &views);
  /// Whether row cluster `k` leaves `producer` out because joining it
  /// would put views it cannot read in place through memory (remarked).
  bool viewsWouldCrossMemory(Operation *producer, int k);
  /// Producers the cluster being grown left out for their views.
  DenseSet<Operation *> leftForViews;

  /// The matmul of cluster `k` whose A operand `producer` computes, if
  /// `producer` is elementwise.
  MatmulOp prologueConsumer(Operation *producer, int k);

  /// Computes the A operand of `matmul` (cluster `k`) inside its kernel
  /// when the cost model says it pays (PrologueFusion.h): a copy of the
  /// chain joins the kernel, and the originals nothing else reads go.
  void tryPrologue(MatmulOp matmul, int k);

  /// Erases the prologue chains' originals that nothing reads any more.
  void eraseReplacedChains();

  // Sibling kernels and the slices GEMMs store (ClusterMerging.cpp).

  /// Row kernels over the same rows that read a common input and do not
  /// depend on each other become one kernel, which reads that input once
  /// (a row's sum beside its maximum of squares).
  void mergeSiblings();

  /// Moves sibling cluster `from` into cluster `to`, saying `why`.
  void absorbSibling(int from, int to, const std::string &why);

  /// Loop kernels over the same elements that read a common broadcast
  /// input, whose work each takes less than a launch and that one emitter
  /// compiles alone and together (the rotary embeddings of a decode step's
  /// query and key, sharing the cosines and sines) become one kernel: the
  /// bytes stay the same or fall, a launch goes. Kernels that share an
  /// input of their own size are left as the recompute-or-read decision
  /// that already weighed them made them. Run last, once GEMMs have taken
  /// the slices they store.
  void mergeLaunchBoundSiblings();

  /// Whether cluster `k`'s work takes less time than a kernel's launch.
  bool launchBound(int k);

  /// The emitter that compiles `ops` as one kernel, or null.
  const opfuse::KernelEmitter *emitterOf(SmallVector<Operation *> ops);

  /// Whether clusters `a` and `b`, each alone, and both as one kernel have
  /// the same emitter: merging keeps each one's kernel form.
  bool sameEmitterTogether(int a, int b);

  /// Whether clusters `a` and `b` read a value that neither computes: one
  /// of `a`'s iteration space's size, or with `ofTheirSize` false any (the
  /// cosines and sines two rotary embeddings share).
  bool sharesInput(int a, int b, bool ofTheirSize = true);

  /// A GEMM whose result is read only through slices with unit steps (Q,
  /// K and V out of one QKV projection) stores each slice as an output of
  /// its own instead of the whole result: each then dies with its last
  /// reader, where the whole result would live until the last of them
  /// (through attention, beside the scores). The bytes written are the
  /// same or fewer.
  void storeSlicesOfGemms();

  /// The slices that read the one value the kernel of `matmul` (cluster
  /// `g`, or none: -1) stores, when only slices read it, none roots a
  /// kernel of more ops, and together they are no larger than it.
  std::optional<SmallVector<Operation *>>
  slicesOfStoredResult(MatmulOp matmul, int g, ArrayRef<Operation *> members);

  /// Whether the GEMM's kernel with `slices`, and every kernel that held
  /// one without it, still compile (the GEMM emitter stores only slices
  /// with unit steps that keep column pairs whole: StridedView.h).
  bool slicesCanMove(ArrayRef<Operation *> members,
                     ArrayRef<Operation *> slices, std::string &why);

  /// Moves `slices` into the kernel of `matmul` (cluster `g`, or a new one).
  void moveSlicesInto(MatmulOp matmul, int g, ArrayRef<Operation *> slices);

  Block &block;
  const opfuse::CostModel &model;
  bool explain;
  /// --gemm-prologues: auto, always or never.
  StringRef prologues;
  DenseSet<std::pair<Operation *, int>> explained;
  /// Ops copied into GEMM prologues, and the ones erased since.
  SmallVector<Operation *> replaced;
  DenseSet<Operation *> erased;
};

} // namespace opfuse::fuse::fusion

#endif // OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_CLUSTERING_H
