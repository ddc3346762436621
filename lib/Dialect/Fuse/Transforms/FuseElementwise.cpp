//===- FuseElementwise.cpp - Group elementwise chains into kernels --------===//
//
// Forms clusters of elementwise and broadcast ops, latest op first, growing
// each through its operands; then turns every cluster into a fuse.group.
// Shared producers are recomputed or kept as extra outputs as the roofline
// cost model (opfuse/Analysis/CostModel.h) predicts is faster; a producer
// joins only when the grouped graph stays acyclic. A matmul joins the
// elementwise kernel after it, which becomes its epilogue, and stores the
// slices its result is read through as outputs of their own.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"

#include "FusionStatistics.h"
#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "PrologueFusion.h"

#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"
#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <queue>

namespace opfuse::fuse {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "opfuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace opfuse::fuse

using namespace mlir;
using namespace opfuse::fuse;
using opfuse::fuse::fusion::count;
namespace stat = opfuse::fuse::fusion::stat;

namespace {

/// Ops that can join a kernel through their users. A reshape only relabels
/// row-major data: inside a kernel it costs nothing, and outside one it is
/// free too (its result aliases its input), so it never roots a kernel.
/// A reduction joins when the kernel stays one row kernel
/// (opfuse/Dialect/Fuse/IR/RowKernel.h); a matmul when the kernel becomes
/// its epilogue (opfuse/Dialect/Fuse/IR/GemmKernel.h).
bool isFusibleProducer(Operation *op) {
  return isElementwise(op) || isa<ReshapeOp>(op) || isReduction(op) ||
         isContraction(op) || isDataMovement(op);
}

/// Ops that start a kernel of their own when no later kernel takes them:
/// data movement too, so that what feeds a transpose or a concat is
/// computed where it is read, and a matmul, so that the views it reads its
/// operands through, and the prologue it may compute A with, join its
/// kernel.
bool isRoot(Operation *op) {
  return isa<MatmulOp, AttentionOp>(op) || isElementwise(op) ||
         getRowShape(op).has_value() || isDataMovement(op);
}

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

  void run() {
    SmallVector<Operation *> order;
    for (Operation &op : llvm::reverse(block.without_terminator()))
      order.push_back(&op);
    for (Operation *op : order) {
      if (erased.contains(op) || !isRoot(op) || clusterOf.count(op))
        continue;
      int k = clusters.size();
      clusters.push_back({op,
                          cast<RankedTensorType>(op->getResult(0).getType()),
                          false,
                          false,
                          false,
                          {},
                          op});
      add(op, k);
      explainBoundaries(op, k, /*asProducer=*/false);
      // Candidate producers, latest first: one is considered only once
      // every user that will join has joined, so a value feeding two
      // members (softmax's exp feeds the sum and the division) is not
      // mistaken for one shared with another kernel.
      Worklist candidates;
      DenseSet<Operation *> considered;
      expand(op, k, candidates);
      while (!candidates.empty()) {
        Operation *producer = candidates.top();
        candidates.pop();
        if (clusterOf.count(producer) || !considered.insert(producer).second)
          continue;
        // A matmul's A producer: its prologue, or nothing.
        if (MatmulOp matmul = prologueConsumer(producer, k))
          tryPrologue(matmul, k);
        else
          consider(producer, k, candidates);
      }
      // Once no worklist holds them: what the GEMM prologues replaced.
      eraseReplacedChains();
    }
    mergeSiblings();
    storeSlicesOfGemms();
    mergeLaunchBoundSiblings();
  }

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

  /// Queues the producers of `member`, a new op of cluster `k`.
  void expand(Operation *member, int k, Worklist &candidates) {
    for (Value operand : member->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || producer->getBlock() != &block ||
          isSplatConstant(producer))
        continue;
      if (!isFusibleProducer(producer))
        explainBoundaries(producer, k, /*asProducer=*/true);
      else if (!clusterOf.count(producer))
        candidates.push(producer);
    }
  }

  void add(Operation *op, int k) {
    clusters[k].ops.insert(op);
    clusterOf[op] = k;
    if (isReduction(op) && !clusters[k].hasReduction) {
      clusters[k].hasReduction = true;
      clusters[k].shape = cast<RankedTensorType>(op->getOperand(0).getType());
    }
    clusters[k].hasContraction |= isContraction(op);
    clusters[k].hasDataMovement |= isDataMovement(op);
    if (op->isBeforeInBlock(clusters[k].earliest))
      clusters[k].earliest = op;
  }

  bool inCluster(Operation *op, int k) const {
    auto it = clusterOf.find(op);
    return it != clusterOf.end() && it->second == k;
  }

  /// Whether a walk from `starts` (forward through users or backward through
  /// producers) reaches cluster `k`. Another cluster counts as one node: a
  /// walk that touches one of its ops continues from all of them.
  bool reaches(ArrayRef<Operation *> starts, int k, bool forward) {
    const Cluster &target = clusters[k];
    SmallVector<Operation *> stack(starts.begin(), starts.end());
    DenseSet<Operation *> seen;
    DenseSet<int> expanded;
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (inCluster(op, k))
        return true;
      if (!seen.insert(op).second)
        continue;
      SmallVector<Operation *> members = {op};
      auto it = clusterOf.find(op);
      if (it != clusterOf.end() && expanded.insert(it->second).second)
        llvm::append_range(members, clusters[it->second].ops);
      for (Operation *member : members) {
        seen.insert(member);
        // Nothing after the root feeds the cluster, and nothing before its
        // earliest op is fed by it.
        if (forward ? target.root->isBeforeInBlock(member)
                    : member->isBeforeInBlock(target.earliest))
          continue;
        if (forward) {
          for (Operation *user : member->getUsers())
            if (user->getBlock() == &block)
              stack.push_back(user);
        } else {
          for (Value operand : member->getOperands())
            if (Operation *def = operand.getDefiningOp())
              if (def->getBlock() == &block)
                stack.push_back(def);
        }
      }
    }
    return false;
  }

  /// Whether cluster `k` with `extra` added is still a kernel an emitter
  /// of the registry compiles (KernelEmitter.h); `why` says what fails.
  bool emittable(ArrayRef<Operation *> extra, int k, std::string &why) {
    const bool rows =
        clusters[k].hasReduction || llvm::any_of(extra, isReduction);
    const bool gemm =
        clusters[k].hasContraction || llvm::any_of(extra, isContraction);
    // Elementwise ops, broadcasts and reshapes: always one loop kernel.
    const bool moves =
        clusters[k].hasDataMovement || llvm::any_of(extra, isDataMovement);
    if (!rows && !gemm && !moves)
      return true;
    SmallVector<Operation *> ops(clusters[k].ops.begin(),
                                 clusters[k].ops.end());
    for (Operation *op : extra)
      if (!clusters[k].ops.contains(op))
        ops.push_back(op);
    return accepted(ops, why);
  }

  /// The registry's answer for `ops` as one kernel.
  opfuse::KernelEmitterRegistry::Selection
  selectEmitter(SmallVector<Operation *> ops) {
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    DenseSet<Operation *> members(ops.begin(), ops.end());
    SmallVector<Value> outputs;
    for (Operation *member : ops)
      for (Value result : member->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !members.count(user); }))
          outputs.push_back(result);
    return opfuse::getKernelEmitters().select(ops, outputs);
  }

  /// Whether an emitter of the registry compiles `ops` as one kernel.
  bool accepted(SmallVector<Operation *> ops, std::string &why) {
    opfuse::KernelEmitterRegistry::Selection selection =
        selectEmitter(std::move(ops));
    if (selection.match.kind == opfuse::EmitterMatch::Kind::Accepted)
      return true;
    why = selection.emitter ? selection.match.reason
                            : "no kernel emitter compiles these ops together";
    return false;
  }

  /// A row reduction outside cluster `k` whose per-row result `producer`
  /// reads (directly, or through smaller elementwise ops) and that cannot
  /// join the cluster with it; null when there is none. Taking `producer`
  /// would split that reduction's epilogue from its kernel.
  Operation *foreignReductionFeeding(Operation *producer, int k) {
    // A GEMM reads its operands from memory: what computes them is not its
    // epilogue, whichever kernel it runs in.
    if (isContraction(producer))
      return nullptr;
    const int64_t size = getNumElements(producer->getResult(0).getType());
    SmallVector<Operation *> stack = {producer};
    DenseSet<Operation *> seen;
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &block || inCluster(def, k) ||
            !seen.insert(def).second)
          continue;
        if (getRowShape(def)) {
          std::string why;
          if (!emittable({producer, def}, k, why))
            return def;
        } else if (isElementwise(def) &&
                   getNumElements(def->getResult(0).getType()) < size) {
          stack.push_back(def);
        }
      }
    }
    return nullptr;
  }

  /// Whether some op of cluster `to` uses, directly or through other ops,
  /// a result of cluster `from`.
  bool dependsOn(int from, int to) {
    SmallVector<Operation *> stack(clusters[from].ops.begin(),
                                   clusters[from].ops.end());
    DenseSet<Operation *> seen;
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      for (Operation *user : op->getUsers()) {
        if (user->getBlock() != &block || !seen.insert(user).second)
          continue;
        if (inCluster(user, to))
          return true;
        stack.push_back(user);
      }
    }
    return false;
  }

  /// Row kernels over the same rows that read a common input and do not
  /// depend on each other become one kernel, which reads that input once
  /// (a row's sum beside its maximum of squares).
  void mergeSiblings() {
    for (int i = 0, e = clusters.size(); i < e; ++i) {
      if (!clusters[i].hasReduction || clusters[i].ops.empty())
        continue;
      for (int j = i + 1; j < e; ++j) {
        if (!clusters[j].hasReduction || clusters[j].ops.empty() ||
            !sharesInput(i, j) || dependsOn(i, j) || dependsOn(j, i))
          continue;
        std::string why;
        if (!emittable(clusters[j].ops.getArrayRef(), i, why))
          continue;
        absorbSibling(j, i,
                      "both reduce the same rows of a common input, which "
                      "one kernel reads once");
      }
    }
    llvm::erase_if(clusters, [](const Cluster &c) { return c.ops.empty(); });
  }

  /// Moves sibling cluster `from` into cluster `to`, saying `why`.
  void absorbSibling(int from, int to, const std::string &why) {
    remark(clusters[from].root, to, stat::siblings,
           "merged with " + describeOp(clusters[to].root) +
               "'s kernel: " + why);
    for (Operation *op : clusters[from].ops)
      add(op, to);
    clusters[from].ops.clear();
  }

  /// Loop kernels over the same elements that read a common broadcast
  /// input, whose work each takes less than a launch and that one emitter
  /// compiles alone and together (the rotary embeddings of a decode step's
  /// query and key, sharing the cosines and sines) become one kernel: the
  /// bytes stay the same or fall, a launch goes. Kernels that share an
  /// input of their own size are left as the recompute-or-read decision
  /// that already weighed them made them. Run last, once GEMMs have taken
  /// the slices they store.
  void mergeLaunchBoundSiblings() {
    for (int i = 0, e = clusters.size(); i < e; ++i) {
      if (clusters[i].ops.empty() || clusters[i].hasReduction ||
          clusters[i].hasContraction || !launchBound(i))
        continue;
      for (int j = i + 1; j < e; ++j) {
        if (clusters[j].ops.empty() || clusters[j].hasReduction ||
            clusters[j].hasContraction ||
            clusters[i].shape != clusters[j].shape || !launchBound(j) ||
            !sharesInput(i, j, /*ofTheirSize=*/false) || sharesInput(i, j) ||
            dependsOn(i, j) || dependsOn(j, i) || !sameEmitterTogether(i, j))
          continue;
        absorbSibling(j, i,
                      "both loop over the same elements, take less than a "
                      "launch and neither needs the other, so one launch "
                      "does both");
      }
    }
    llvm::erase_if(clusters, [](const Cluster &c) { return c.ops.empty(); });
  }

  /// Whether cluster `k`'s work takes less time than a kernel's launch.
  bool launchBound(int k) {
    return model.workSeconds(clusterWork(k)) <
           model.predict(opfuse::Work()).launchSeconds;
  }

  /// The emitter that compiles `ops` as one kernel, or null.
  const opfuse::KernelEmitter *emitterOf(SmallVector<Operation *> ops) {
    opfuse::KernelEmitterRegistry::Selection selection =
        selectEmitter(std::move(ops));
    return selection.match.kind == opfuse::EmitterMatch::Kind::Accepted
               ? selection.emitter
               : nullptr;
  }

  /// Whether clusters `a` and `b`, each alone, and both as one kernel have
  /// the same emitter: merging keeps each one's kernel form.
  bool sameEmitterTogether(int a, int b) {
    SmallVector<Operation *> first(clusters[a].ops.begin(),
                                   clusters[a].ops.end());
    SmallVector<Operation *> second(clusters[b].ops.begin(),
                                    clusters[b].ops.end());
    const opfuse::KernelEmitter *alone = emitterOf(first);
    if (!alone || emitterOf(second) != alone)
      return false;
    llvm::append_range(first, second);
    return emitterOf(first) == alone;
  }

  /// A GEMM whose result is read only through slices with unit steps (Q,
  /// K and V out of one QKV projection) stores each slice as an output of
  /// its own instead of the whole result: each then dies with its last
  /// reader, where the whole result would live until the last of them
  /// (through attention, beside the scores). The bytes written are the
  /// same or fewer.
  void storeSlicesOfGemms() {
    for (Operation &op : block) {
      auto matmul = dyn_cast<MatmulOp>(&op);
      if (!matmul)
        continue;
      auto found = clusterOf.find(matmul);
      const int g = found == clusterOf.end() ? -1 : found->second;
      SmallVector<Operation *> members =
          g < 0 ? SmallVector<Operation *>{matmul.getOperation()}
                : SmallVector<Operation *>(clusters[g].ops.begin(),
                                           clusters[g].ops.end());
      std::optional<SmallVector<Operation *>> slices =
          slicesOfStoredResult(matmul, g, members);
      if (!slices)
        continue;
      std::string why;
      if (!slicesCanMove(members, *slices, why)) {
        count(stat::slicesNotStored);
        if (explain)
          explainAt(matmul, "fuse-elementwise", ExplainKind::Missed,
                    "slices-not-stored",
                    "the slices of its result stay views of the whole "
                    "result: " +
                        why);
        continue;
      }
      moveSlicesInto(matmul, g, *slices);
    }
    llvm::erase_if(clusters, [](const Cluster &c) { return c.ops.empty(); });
  }

  /// The slices that read the one value the kernel of `matmul` (cluster
  /// `g`, or none: -1) stores, when only slices read it, none roots a
  /// kernel of more ops, and together they are no larger than it.
  std::optional<SmallVector<Operation *>>
  slicesOfStoredResult(MatmulOp matmul, int g, ArrayRef<Operation *> members) {
    auto readOutside = [&](Operation *user) {
      return g < 0 ? user != matmul.getOperation() : !inCluster(user, g);
    };
    SmallVector<Value> stored;
    for (Operation *member : members)
      for (Value result : member->getResults())
        if (llvm::any_of(result.getUsers(), readOutside))
          stored.push_back(result);
    if (stored.size() != 1 ||
        cast<RankedTensorType>(stored[0].getType()).getShape() !=
            matmul.getType().getShape())
      return std::nullopt;
    SmallVector<Operation *> slices;
    int64_t sliced = 0;
    for (Operation *user : stored[0].getUsers()) {
      if (!readOutside(user) || llvm::is_contained(slices, user))
        continue;
      auto in = clusterOf.find(user);
      if (!isa<SliceOp>(user) ||
          (in != clusterOf.end() && clusters[in->second].root == user &&
           clusters[in->second].ops.size() > 1))
        return std::nullopt;
      slices.push_back(user);
      sliced += getNumElements(user->getResultTypes()[0]);
    }
    if (slices.empty() || sliced > getNumElements(stored[0].getType()))
      return std::nullopt;
    return slices;
  }

  /// Whether the GEMM's kernel with `slices`, and every kernel that held
  /// one without it, still compile (the GEMM emitter stores only slices
  /// with unit steps that keep column pairs whole: StridedView.h).
  bool slicesCanMove(ArrayRef<Operation *> members,
                     ArrayRef<Operation *> slices, std::string &why) {
    SmallVector<Operation *> gemm(members.begin(), members.end());
    llvm::append_range(gemm, slices);
    if (!accepted(gemm, why))
      return false;
    for (Operation *slice : slices) {
      auto in = clusterOf.find(slice);
      if (in == clusterOf.end())
        continue;
      SmallVector<Operation *> rest;
      for (Operation *member : clusters[in->second].ops)
        if (member != slice)
          rest.push_back(member);
      // A kernel that was only the slice disappears.
      if (!rest.empty() && !accepted(rest, why))
        return false;
    }
    return true;
  }

  /// Moves `slices` into the kernel of `matmul` (cluster `g`, or a new one).
  void moveSlicesInto(MatmulOp matmul, int g, ArrayRef<Operation *> slices) {
    if (g < 0) {
      g = clusters.size();
      clusters.push_back(
          {matmul, matmul.getType(), false, false, false, {}, matmul});
      add(matmul, g);
    }
    for (Operation *slice : slices) {
      auto in = clusterOf.find(slice);
      if (in != clusterOf.end()) {
        Cluster &holder = clusters[in->second];
        holder.ops.remove(slice);
        holder.hasDataMovement = llvm::any_of(holder.ops, isDataMovement);
        clusterOf.erase(slice);
      }
      add(slice, g);
      count(stat::slicesStored);
      if (explain)
        explainAt(slice, "fuse-elementwise", ExplainKind::Passed,
                  "slice-stored",
                  "moved into " + describeOp(matmul) +
                      "'s kernel instead, which stores it as an output of "
                      "its own: the result is read only through slices, "
                      "which then die with their last readers (kernel of " +
                      describeOp(clusters[g].root) + ")");
    }
  }

  /// Whether clusters `a` and `b` read a value that neither computes: one
  /// of `a`'s iteration space's size, or with `ofTheirSize` false any (the
  /// cosines and sines two rotary embeddings share).
  bool sharesInput(int a, int b, bool ofTheirSize = true) {
    DenseSet<Value> inputs;
    const int64_t elements = getNumElements(clusters[a].shape);
    for (Operation *op : clusters[a].ops)
      for (Value operand : op->getOperands())
        if (!inCluster(operand.getDefiningOp(), a) &&
            !isSplatConstant(operand.getDefiningOp()) &&
            (!ofTheirSize || getNumElements(operand.getType()) == elements))
          inputs.insert(operand);
    for (Operation *op : clusters[b].ops)
      for (Value operand : op->getOperands())
        if (!inCluster(operand.getDefiningOp(), b) && inputs.count(operand))
          return true;
    return false;
  }

  /// Whether adding `op` to cluster `k` makes a path leave it and return.
  bool createsCycle(Operation *op, int k) {
    SmallVector<Operation *> users, producers;
    for (Operation *user : op->getUsers())
      if (!inCluster(user, k) && user->getBlock() == &block)
        users.push_back(user);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (!inCluster(def, k) && def->getBlock() == &block)
          producers.push_back(def);
    return reaches(users, k, /*forward=*/true) ||
           reaches(producers, k, /*forward=*/false);
  }

  /// What cluster `k` does as it stands: its ops' FLOPs, and the bytes of
  /// the values that cross its boundary (read once, or written because a
  /// user outside needs them).
  opfuse::Work clusterWork(int k) {
    opfuse::Work work;
    DenseSet<Value> inputs;
    for (Operation *op : clusters[k].ops) {
      opfuse::Work own = model.work(op);
      work.flops += own.flops;
      work.computeSeconds += own.computeSeconds;
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && (inCluster(def, k) || isSplatConstant(def)))
          continue;
        if (inputs.insert(operand).second)
          work.bytes += getByteSize(operand.getType());
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *u) { return !inCluster(u, k); }))
          work.bytes += getByteSize(result.getType());
    }
    return work;
  }

  /// Bytes of `op`'s operands the cluster does not read or compute yet.
  int64_t newInputBytes(Operation *op, int k) {
    int64_t bytes = 0;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && (inCluster(def, k) || isSplatConstant(def)))
        continue;
      bool alreadyRead = llvm::any_of(
          operand.getUsers(), [&](Operation *u) { return inCluster(u, k); });
      if (!alreadyRead)
        bytes += getByteSize(operand.getType());
    }
    return bytes;
  }

  void remark(Operation *producer, int k,
              const opfuse::PassStatistic &statistic, const Twine &message) {
    count(statistic);
    if (!explain)
      return;
    // The outcome from the message's first words: "not fused ...",
    // "fused ...", "recomputed ...", "kept ...".
    const std::string text = message.str();
    const StringRef words(text);
    const bool missed = words.starts_with("not ");
    const bool passed = !missed && (words.starts_with("fused") ||
                                    words.starts_with("recomputed"));
    explainAt(producer, "fuse-elementwise",
              missed   ? ExplainKind::Missed
              : passed ? ExplainKind::Passed
                       : ExplainKind::Analysis,
              missed   ? "not-fused"
              : passed ? "fused"
                       : "decision",
              text + " (kernel of " + describeOp(clusters[k].root) + ")");
  }

  /// Remarks on the edges where kernel `k` must stop because the op on the
  /// other side is not elementwise: `op` is either a producer feeding the
  /// kernel or the kernel's root, whose non-elementwise users read it.
  void explainBoundaries(Operation *op, int k, bool asProducer) {
    if (asProducer) {
      if (explained.insert({op, k}).second)
        remark(op, k, stat::notElementwise,
               "not fused: it is not elementwise, so the kernel reads its "
               "result from memory");
      return;
    }
    for (Operation *user : op->getUsers())
      if (user->getBlock() == &block && isContraction(user))
        remark(op, k, stat::gemmOperand,
               "not fused into " + describeOp(user) +
                   ": a GEMM kernel reads its operands from memory unless "
                   "it computes A in a prologue, so this kernel writes its "
                   "result");
      else if (user->getBlock() == &block && !isFusibleProducer(user) &&
               !user->hasTrait<OpTrait::IsTerminator>())
        remark(op, k, stat::notElementwise,
               "not fused into " + describeOp(user) +
                   ": that op is not elementwise, so this kernel writes its "
                   "result to memory");
  }

  /// Whether the reshape `producer` may join cluster `k`. On the way to a
  /// GEMM operand it is part of the strided view the GEMM reads through; in
  /// a kernel that moves data every value is evaluated at its own index
  /// (IndexedEvaluator.h), so it is an index map of any size; elsewhere it
  /// relabels the kernel's linear index and must span the whole space.
  bool reshapeJoins(Operation *producer, int k, bool allUsersInside) {
    const Cluster &cluster = clusters[k];
    if (!allUsersInside)
      return false;
    const bool gemmView =
        cluster.hasContraction &&
        llvm::all_of(producer->getUsers(), [](Operation *user) {
          return isa<MatmulOp, AttentionOp>(user) || isStridedViewOp(user);
        });
    return gemmView || cluster.hasDataMovement ||
           getNumElements(producer->getResultTypes()[0]) ==
               getNumElements(cluster.shape);
  }

  /// The matmul of cluster `k` whose A operand `producer` computes, if
  /// `producer` is elementwise.
  MatmulOp prologueConsumer(Operation *producer, int k) {
    if (!clusters[k].hasContraction || !isElementwise(producer))
      return nullptr;
    for (Operation *user : producer->getUsers())
      if (auto matmul = dyn_cast<MatmulOp>(user);
          matmul && inCluster(matmul, k) &&
          matmul.getLhs() == producer->getResult(0))
        return matmul;
    return nullptr;
  }

  /// Computes the A operand of `matmul` (cluster `k`) inside its kernel
  /// when the cost model says it pays (PrologueFusion.h): a copy of the
  /// chain joins the kernel, and the originals nothing else reads go.
  void tryPrologue(MatmulOp matmul, int k) {
    Operation *def = matmul.getLhs().getDefiningOp();
    std::string why;
    FailureOr<PrologueChain> chain = findPrologueChain(
        matmul, [&](Operation *op) { return clusterOf.count(op) != 0; }, why);
    std::string as = "as the prologue of " + describeOp(matmul) + ": ";
    if (prologues == "never") {
      remark(def, k, stat::prologueRefused,
             "not fused " + as + "--gemm-prologues=never");
      return;
    }
    if (failed(chain)) {
      remark(def, k, stat::prologueRefused, "not fused " + as + why);
      return;
    }
    PrologueVerdict verdict = judgePrologue(*chain, model);
    if (prologues == "always")
      verdict.reason = "--gemm-prologues=always (" + verdict.reason + ")";
    else if (!verdict.pays) {
      remark(def, k, stat::prologueRefused, "not fused " + as + verdict.reason);
      return;
    }
    SmallVector<Operation *> leafDefs;
    for (Value leaf : chain->leaves)
      if (Operation *leafDef = leaf.getDefiningOp();
          leafDef && leafDef->getBlock() == &block)
        leafDefs.push_back(leafDef);
    if (reaches(leafDefs, k, /*forward=*/false)) {
      remark(def, k, stat::prologueRefused,
             "not fused " + as + "it reads what the kernel computes");
      return;
    }
    IRMapping mapping;
    OpBuilder builder(matmul);
    SmallVector<Operation *> copies;
    for (Operation *op : chain->ops)
      copies.push_back(builder.clone(*op, mapping));
    Value original = matmul.getLhs();
    matmul->setOperand(0, mapping.lookup(original));
    if (!emittable(copies, k, why)) {
      matmul->setOperand(0, original);
      for (Operation *copy : llvm::reverse(copies))
        copy->erase();
      remark(def, k, stat::prologueRefused, "not fused " + as + why);
      return;
    }
    for (Operation *copy : copies)
      add(copy, k);
    remark(def, k, stat::prologues, "fused " + as + verdict.reason);
    llvm::append_range(replaced, chain->ops);
  }

  /// Erases the prologue chains' originals that nothing reads any more.
  void eraseReplacedChains() {
    llvm::sort(replaced, [](Operation *a, Operation *b) {
      return b->isBeforeInBlock(a);
    });
    for (Operation *op : replaced)
      if (!erased.contains(op) && op->use_empty()) {
        erased.insert(op);
        op->erase();
      }
    replaced.clear();
  }

  /// Decides what becomes of `producer`, a fusible op feeding cluster `k`.
  void consider(Operation *producer, int k, Worklist &worklist) {
    Cluster &cluster = clusters[k];
    if (Operation *reduction = foreignReductionFeeding(producer, k)) {
      remark(producer, k, stat::reductionEpilogue,
             "not fused: it is the epilogue of " + describeOp(reduction) +
                 ", which cannot join this kernel; it stays in that "
                 "reduction's kernel");
      return;
    }
    bool allUsersInside = llvm::all_of(
        producer->getUsers(), [&](Operation *u) { return inCluster(u, k); });
    if (isa<ReshapeOp>(producer) &&
        !reshapeJoins(producer, k, allUsersInside)) {
      remark(producer, k, stat::reshape,
             "not fused: a reshape joins a kernel only when all its users "
             "are inside and it spans the kernel's whole iteration space "
             "(or the kernel moves data); outside a kernel it is free (its "
             "result aliases its input)");
      return;
    }
    if (allUsersInside) {
      if (createsCycle(producer, k)) {
        remark(producer, k, stat::cycle,
               "not fused: a path from the kernel leaves it and comes back "
               "through this op");
        return;
      }
      std::string why;
      if (!emittable({producer}, k, why)) {
        remark(producer, k, stat::noEmitter, "not fused: " + why);
        return;
      }
      add(producer, k);
      expand(producer, k, worklist);
      return;
    }

    // A shared producer: recompute it here, write it as an extra output of
    // this kernel, or leave it to be read.
    auto cost = cast<CostInterface>(producer);
    auto producerType = cast<RankedTensorType>(producer->getResultTypes()[0]);
    const int64_t producerElements = getNumElements(producerType);
    const int64_t extraFlops = producerElements == 0
                                   ? 0
                                   : cost.getFlops() / producerElements *
                                         getNumElements(cluster.shape);
    const int64_t extraBytes = newInputBytes(producer, k);
    const int64_t readBytes = getByteSize(producerType);
    // Compare what the kernel would take with the producer recomputed in it
    // against with its result read: on the roofline, extra FLOPs in a
    // memory-bound kernel cost nothing until compute becomes the bound.
    const opfuse::Work base = clusterWork(k);
    opfuse::Work recomputed = base, read = base;
    recomputed.flops += extraFlops;
    recomputed.computeSeconds += extraFlops / model.flopsCeiling(producer);
    recomputed.bytes += extraBytes;
    read.bytes += readBytes;
    const double baseSeconds = model.workSeconds(base);
    const double recomputeCost = model.workSeconds(recomputed) - baseSeconds;
    const double readCost = model.workSeconds(read) - baseSeconds;
    // A user that no kernel can recompute it for (a matmul, the return)
    // needs it in memory anyway: then recomputing must be strictly faster
    // to be worth the work. Otherwise a tie goes to recomputing, since when
    // every user recomputes it the producer's own kernel disappears.
    Operation *needsMemory = nullptr;
    for (Operation *user : producer->getUsers())
      if (!inCluster(user, k) && !isElementwise(user)) {
        needsMemory = user;
        break;
      }
    const bool cheap =
        needsMemory ? recomputeCost < readCost : recomputeCost <= readCost;
    std::string costs =
        llvm::formatv("recomputing adds {0} FLOPs and {1} bytes (+{2:F2} ns "
                      "predicted), reading adds {3} bytes (+{4:F2} ns) on {5}",
                      extraFlops, extraBytes, recomputeCost * 1e9, readBytes,
                      readCost * 1e9, model.target().name)
            .str();
    // When it must reach memory anyway, writing it from here costs nothing
    // extra and is tried first; otherwise recomputing may keep it out of
    // memory altogether.
    const bool sameShape =
        producerType == cluster.shape.clone(producerType.getElementType());

    std::string why;
    auto tryRecompute = [&]() -> bool {
      // A reduction or a matmul recomputed would read its whole inputs
      // again.
      if (!cheap || isReduction(producer) || isContraction(producer))
        return false;
      OpBuilder builder(producer->getContext());
      builder.setInsertionPointAfter(producer);
      Operation *copy = builder.clone(*producer);
      producer->getResult(0).replaceUsesWithIf(
          copy->getResult(0),
          [&](OpOperand &use) { return inCluster(use.getOwner(), k); });
      if (createsCycle(copy, k) || !emittable({copy}, k, why)) {
        copy->getResult(0).replaceAllUsesWith(producer->getResult(0));
        copy->erase();
        return false;
      }
      add(copy, k);
      expand(copy, k, worklist);
      remark(producer, k, stat::recomputed,
             "recomputed in the kernel: " + costs);
      return true;
    };
    bool cycle = false;
    auto tryExtraOutput = [&]() -> bool {
      // A row kernel writes per-element and per-row outputs alike.
      if (!sameShape && !cluster.hasReduction && !isReduction(producer))
        return false;
      if (!emittable({producer}, k, why))
        return false;
      if (createsCycle(producer, k)) {
        cycle = true;
        return false;
      }
      add(producer, k);
      expand(producer, k, worklist);
      if (needsMemory)
        remark(producer, k, stat::extraOutputs,
               "kept as an extra output of the kernel: " +
                   describeOp(needsMemory) + " needs it in memory");
      else
        remark(producer, k, stat::extraOutputs,
               "kept as an extra output of the kernel: recomputing costs "
               "more than reading: " +
                   costs);
      return true;
    };
    if (needsMemory ? (tryExtraOutput() || tryRecompute())
                    : (tryRecompute() || tryExtraOutput()))
      return;

    remark(producer, k, stat::shared,
           "not fused: " +
               whyNotExtraOutput(why, sameShape, cycle, producerType,
                                 cluster.shape) +
               ", and " + whyNotRecomputed(producer, cheap, costs));
  }

  /// Why a shared producer could not stay in the kernel as an output.
  static std::string whyNotExtraOutput(const std::string &why, bool sameShape,
                                       bool cycle, RankedTensorType producer,
                                       RankedTensorType kernel) {
    if (!why.empty())
      return why;
    if (!sameShape)
      return "its shape " + formatShape(producer.getShape()) +
             " differs from the kernel's " + formatShape(kernel.getShape()) +
             ", so it cannot be an extra output";
    return cycle ? "as an extra output a path would leave the kernel and "
                   "come back"
                 : "it cannot be an extra output";
  }

  /// Why a shared producer was not recomputed in the kernel.
  static std::string whyNotRecomputed(Operation *producer, bool cheap,
                                      const std::string &costs) {
    if (isReduction(producer) || isContraction(producer))
      return "it is not recomputed (that would read its whole inputs again)";
    return cheap ? std::string("recomputing it would form a cycle")
                 : "recomputing it is not faster than reading it: " + costs;
  }

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

struct FuseElementwisePass
    : public opfuse::fuse::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;
  void runOnOperation() override;
};

} // namespace

void FuseElementwisePass::runOnOperation() {
  if (!isGemmPrologueMode(gemmPrologues)) {
    getOperation().emitError("gemm-prologues=")
        << gemmPrologues << ": expected auto, always or never";
    return signalPassFailure();
  }
  const opfuse::CostModel model(opfuse::fuse::getTarget(getOperation()));
  for (Block &block : getOperation().getBody()) {
    const int64_t bytesBefore = fusion::bytesThroughMemory(block);
    Clustering clustering(block, model, explain, gemmPrologues);
    clustering.run();
    for (Cluster &cluster : clustering.clusters) {
      count(stat::kernels);
      if (cluster.ops.size() > 1)
        count(stat::opsFused, cluster.ops.size());
      outlineIntoGroup(cluster.ops.getArrayRef());
    }
    // Splat constants now live inside the groups that use them.
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isSplatConstant(&op) && op.use_empty())
        op.erase();
    const int64_t saved = bytesBefore - fusion::bytesThroughMemory(block);
    if (saved > 0)
      count(stat::bytesSaved, saved);
    // A group sits where its last op was; an earlier op's output may be
    // used before that point, so restore a def-before-use order.
    if (!sortTopologically(&block)) {
      getOperation().emitError("internal error: fuse-elementwise produced a "
                               "cyclic graph; please report this compiler "
                               "bug");
      return signalPassFailure();
    }
  }
}
