//===- Clustering.cpp - Grow fuse-elementwise's clusters
//-------------------===//
//
// Grows each cluster from its root through its producers, latest first, and
// answers what growth asks: whether a kernel stays emittable, acyclic, and
// what it reads and writes.
//
//===----------------------------------------------------------------------===//

#include "Clustering.h"

#include "FusionStatistics.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"
#include "opfuse/Dialect/Fuse/IR/StridedView.h"
#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::fuse::fusion {

bool isFusibleProducer(Operation *op) {
  return isElementwise(op) || isa<ReshapeOp>(op) || isReduction(op) ||
         isContraction(op) || isDataMovement(op);
}

bool isRoot(Operation *op) {
  return isa<MatmulOp, AttentionOp>(op) || isElementwise(op) ||
         getRowShape(op).has_value() || isDataMovement(op);
}

void Clustering::run() {
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
    deferredReshapes.clear();
    leftForViews.clear();
    do {
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
      // Reshapes met before the kernel moved data: asked again now that it
      // does, or left out for good.
      SmallVector<Operation *> deferred = std::move(deferredReshapes);
      deferredReshapes.clear();
      for (Operation *reshape : deferred) {
        if (clusters[k].hasDataMovement) {
          considered.erase(reshape);
          candidates.push(reshape);
        } else {
          remarkReshapeLeftOut(reshape, k);
        }
      }
    } while (!candidates.empty());
    // Once no worklist holds them: what the GEMM prologues replaced.
    eraseReplacedChains();
  }
  mergeSiblings();
  storeSlicesOfGemms();
  mergeLaunchBoundSiblings();
}

void Clustering::expand(Operation *member, int k, Worklist &candidates) {
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

void Clustering::add(Operation *op, int k, bool inPrologue) {
  clusters[k].ops.insert(op);
  clusterOf[op] = k;
  if (isReduction(op) && !inPrologue && !clusters[k].hasReduction) {
    clusters[k].hasReduction = true;
    clusters[k].shape = cast<RankedTensorType>(op->getOperand(0).getType());
  }
  clusters[k].hasContraction |= isContraction(op);
  clusters[k].hasDataMovement |= isDataMovement(op);
  if (op->isBeforeInBlock(clusters[k].earliest))
    clusters[k].earliest = op;
}

bool Clustering::reaches(ArrayRef<Operation *> starts, int k, bool forward) {
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

bool Clustering::emittable(ArrayRef<Operation *> extra, int k,
                           std::string &why) {
  const bool rows =
      clusters[k].hasReduction || llvm::any_of(extra, isReduction);
  const bool gemm =
      clusters[k].hasContraction || llvm::any_of(extra, isContraction);
  // Elementwise ops, broadcasts and reshapes: always one loop kernel.
  const bool moves =
      clusters[k].hasDataMovement || llvm::any_of(extra, isDataMovement);
  if (!rows && !gemm && !moves)
    return true;
  SmallVector<Operation *> ops(clusters[k].ops.begin(), clusters[k].ops.end());
  for (Operation *op : extra)
    if (!clusters[k].ops.contains(op))
      ops.push_back(op);
  return accepted(ops, why);
}

opfuse::KernelEmitterRegistry::Selection
Clustering::selectEmitter(SmallVector<Operation *> ops) {
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  DenseSet<Operation *> members(ops.begin(), ops.end());
  SmallVector<Value> outputs;
  for (Operation *member : ops)
    for (Value result : member->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !members.count(user); }))
        outputs.push_back(result);
  return opfuse::getKernelEmitters().select(ops, outputs);
}

bool Clustering::accepted(SmallVector<Operation *> ops, std::string &why) {
  opfuse::KernelEmitterRegistry::Selection selection =
      selectEmitter(std::move(ops));
  if (selection.match.kind == opfuse::EmitterMatch::Kind::Accepted)
    return true;
  why = selection.emitter ? selection.match.reason
                          : "no kernel emitter compiles these ops together";
  return false;
}

Operation *Clustering::foreignReductionFeeding(Operation *producer, int k) {
  // A GEMM reads its operands from memory: what computes them is not its
  // epilogue, whichever kernel it runs in.
  if (isContraction(producer))
    return nullptr;
  const int64_t size = getNumElements(producer->getResult(0).getType());
  // A smaller operand of an elementwise op is a per-row value broadcast
  // back; a concat's or a slice's smaller operand is just a part of it (a
  // padded input), not a reduction's epilogue.
  const bool followSmaller = !isDataMovement(producer);
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
      } else if (followSmaller && isElementwise(def) &&
                 getNumElements(def->getResult(0).getType()) < size) {
        stack.push_back(def);
      }
    }
  }
  return nullptr;
}

bool Clustering::dependsOn(int from, int to) {
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

bool Clustering::createsCycle(Operation *op, int k) {
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

opfuse::Work Clustering::clusterWork(int k) {
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

int64_t Clustering::newInputBytes(Operation *op, int k) {
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

void Clustering::remark(Operation *producer, int k,
                        const opfuse::PassStatistic &statistic,
                        const Twine &message) {
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

void Clustering::explainBoundaries(Operation *op, int k, bool asProducer) {
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

bool Clustering::reshapeJoins(Operation *producer, int k, bool allUsersInside) {
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

} // namespace opfuse::fuse::fusion
