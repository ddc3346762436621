//===- ClusterMerging.cpp - Sibling kernels and a GEMM's stored slices
//-----===//
//
// After growth: row kernels over the same rows and launch-bound loop
// kernels that share an input become one kernel, and a GEMM whose result is
// read only through slices stores each slice itself.
//
//===----------------------------------------------------------------------===//

#include "Clustering.h"

#include "FusionStatistics.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::fuse::fusion {

void Clustering::mergeSiblings() {
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

void Clustering::absorbSibling(int from, int to, const std::string &why) {
  remark(clusters[from].root, to, stat::siblings,
         "merged with " + describeOp(clusters[to].root) + "'s kernel: " + why);
  for (Operation *op : clusters[from].ops)
    add(op, to);
  clusters[from].ops.clear();
}

void Clustering::mergeLaunchBoundSiblings() {
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

bool Clustering::launchBound(int k) {
  return model.workSeconds(clusterWork(k)) <
         model.predict(opfuse::Work()).launchSeconds;
}

const opfuse::KernelEmitter *
Clustering::emitterOf(SmallVector<Operation *> ops) {
  opfuse::KernelEmitterRegistry::Selection selection =
      selectEmitter(std::move(ops));
  return selection.match.kind == opfuse::EmitterMatch::Kind::Accepted
             ? selection.emitter
             : nullptr;
}

bool Clustering::sameEmitterTogether(int a, int b) {
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

bool Clustering::sharesInput(int a, int b, bool ofTheirSize) {
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

void Clustering::storeSlicesOfGemms() {
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

std::optional<SmallVector<Operation *>>
Clustering::slicesOfStoredResult(MatmulOp matmul, int g,
                                 ArrayRef<Operation *> members) {
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

bool Clustering::slicesCanMove(ArrayRef<Operation *> members,
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

void Clustering::moveSlicesInto(MatmulOp matmul, int g,
                                ArrayRef<Operation *> slices) {
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
      explainAt(slice, "fuse-elementwise", ExplainKind::Passed, "slice-stored",
                "moved into " + describeOp(matmul) +
                    "'s kernel instead, which stores it as an output of "
                    "its own: the result is read only through slices, "
                    "which then die with their last readers (kernel of " +
                    describeOp(clusters[g].root) + ")");
  }
}

} // namespace opfuse::fuse::fusion
