//===- ClusterProducers.cpp - What becomes of a cluster's producers -------===//
//
// A producer feeding a cluster joins it, is recomputed in it, stays as an
// extra output, becomes a GEMM's A prologue (PrologueFusion.h), or is left
// to be read from memory, as the roofline cost model predicts is faster.
//
//===----------------------------------------------------------------------===//

#include "Clustering.h"

#include "FusionStatistics.h"
#include "PrologueFusion.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"
#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::fuse::fusion {
namespace {

/// Why a shared producer could not stay in the kernel as an output.
std::string whyNotExtraOutput(const std::string &why, bool sameShape,
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
std::string whyNotRecomputed(Operation *producer, bool cheap,
                             const std::string &costs) {
  if (isReduction(producer) || isContraction(producer))
    return "it is not recomputed (that would read its whole inputs again)";
  return cheap ? std::string("recomputing it would form a cycle")
               : "recomputing it is not faster than reading it: " + costs;
}

} // namespace

bool Clustering::viewsWouldCrossMemory(Operation *producer, int k) {
  // A row kernel reads its inputs whole: views above the chain it would
  // take (a windowed convolution's strided windows) would cross memory,
  // where the chain's own loop kernel reads them in place.
  int64_t views = 0;
  const int64_t joined = bytesThroughMemoryIfJoined(producer, k, views);
  const int64_t ownBytes =
      getByteSize(cast<RankedTensorType>(producer->getResultTypes()[0]));
  if (joined <= ownBytes)
    return false;
  leftForViews.insert(producer);
  remark(producer, k, stat::unreadViews,
         llvm::formatv("not fused: joined, it would leave {0} bytes to cross "
                       "memory above it, {1} view(s) a row kernel cannot "
                       "read in place among them; in its own loop kernel it "
                       "writes {2}",
                       joined, views, ownBytes)
             .str());
  return true;
}

int64_t Clustering::bytesThroughMemoryIfJoined(Operation *producer, int k,
                                               int64_t &views) {
  // What joining `producer` leaves to cross memory above it: for each
  // operand, the cheaper of its own result and, recursively, what its
  // operands leave (a joinable elementwise op), or the whole of a view the
  // kernel cannot read in place. Memoised over the chain; views counted
  // once.
  DenseMap<Operation *, int64_t> cut;
  DenseSet<Operation *> counted;
  size_t visits = 0;
  std::function<int64_t(Operation *)> above = [&](Operation *op) -> int64_t {
    int64_t sum = 0;
    // A value read twice (x * x) crosses memory once.
    SetVector<Value> operands(op->getOperands().begin(),
                              op->getOperands().end());
    for (Value operand : operands) {
      Operation *def = operand.getDefiningOp();
      // A producer already left out (for its views) is read from memory
      // either way, as are the cluster's members and splats.
      if (!def || def->getBlock() != &block || clusterOf.count(def) ||
          leftForViews.contains(def) || isSplatConstant(def))
        continue;
      const int64_t bytes =
          getByteSize(cast<RankedTensorType>(operand.getType()));
      if (isElementwise(def)) {
        auto [it, inserted] = cut.try_emplace(def, bytes);
        if (inserted && ++visits < 512)
          it->second = std::min(bytes, above(def));
        sum += it->second;
        continue;
      }
      std::string why;
      if (isDataMovement(def) && !isa<ReshapeOp>(def) &&
          !emittable({def}, k, why)) {
        sum += bytes;
        if (counted.insert(def).second)
          ++views;
      }
    }
    return sum;
  };
  return above(producer);
}

void Clustering::remarkReshapeLeftOut(Operation *reshape, int k) {
  remark(reshape, k, stat::reshape,
         "not fused: a reshape joins a kernel only when all its users "
         "are inside and it spans the kernel's whole iteration space "
         "(or the kernel moves data); outside a kernel it is free (its "
         "result aliases its input)");
}

void Clustering::consider(Operation *producer, int k, Worklist &worklist) {
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
  if (isa<ReshapeOp>(producer) && !reshapeJoins(producer, k, allUsersInside)) {
    // The data movement it would join may not have joined yet (producers
    // are considered latest first): asked again once the worklist is empty.
    if (allUsersInside && !cluster.hasDataMovement)
      deferredReshapes.push_back(producer);
    else
      remarkReshapeLeftOut(producer, k);
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
    if (cluster.hasReduction && isElementwise(producer) &&
        viewsWouldCrossMemory(producer, k))
      return;
    add(producer, k);
    expand(producer, k, worklist);
    return;
  }

  // A shared producer: recompute it here, write it as an extra output of
  // this kernel, or leave it to be read.
  auto cost = cast<CostInterface>(producer);
  auto producerType = cast<RankedTensorType>(producer->getResultTypes()[0]);
  const int64_t producerElements = getNumElements(producerType);
  const int64_t extraFlops =
      producerElements == 0
          ? 0
          : cost.getFlops() / producerElements * getNumElements(cluster.shape);
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
    remark(producer, k, stat::recomputed, "recomputed in the kernel: " + costs);
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

MatmulOp Clustering::prologueConsumer(Operation *producer, int k) {
  if (!clusters[k].hasContraction || !isElementwise(producer))
    return nullptr;
  for (Operation *user : producer->getUsers())
    if (auto matmul = dyn_cast<MatmulOp>(user);
        matmul && inCluster(matmul, k) &&
        matmul.getLhs() == producer->getResult(0))
      return matmul;
  return nullptr;
}

void Clustering::tryPrologue(MatmulOp matmul, int k) {
  Operation *def = matmul.getLhs().getDefiningOp();
  std::string why;
  FailureOr<PrologueChain> chain = findPrologueChain(
      matmul, [&](Operation *op) { return clusterOf.count(op) != 0; },
      /*statistics=*/prologues == "always", why);
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
    add(copy, k, /*inPrologue=*/true);
  remark(def, k, stat::prologues, "fused " + as + verdict.reason);
  llvm::append_range(replaced, chain->ops);
}

void Clustering::eraseReplacedChains() {
  llvm::sort(replaced,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : replaced)
    if (!erased.contains(op) && op->use_empty()) {
      erased.insert(op);
      op->erase();
    }
  replaced.clear();
}

} // namespace opfuse::fuse::fusion
