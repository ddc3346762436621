//===- CanonicalOrder.cpp - Op order of a kernel independent of C++ -------===//
//
// A block is rebuilt from its anchors (ops with effects, regions or a
// terminator role), in their order: before each anchor come the
// side-effect-free ops it needs that are not placed yet, in depth-first
// post-order over operands. Anchors are statements of the emitters (their
// order is the order of the C++ statements that build them), so the result
// does not depend on how the free ops between them were interleaved.
//
// Placed that way, the arithmetic on loaded values waits for the anchor
// that needs it, the final store, so every load of the block comes first.
// That is what an elementwise kernel wants (all its loads in flight), but
// a kernel of many loads (a 7x7 depthwise convolution's 49 taps, as
// fuse-decompose writes it) then holds every loaded vector at once and
// spills. Given a batch size, a block of more than two batches of loads
// gets, after each batch, the arithmetic those loads make ready.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/CanonicalOrder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Region.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

using namespace mlir;

namespace opfuse {
namespace {

/// Free ops may move anywhere between their operands and their users.
bool isFree(Operation *op) {
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         isMemoryEffectFree(op);
}

class BlockSorter {
public:
  BlockSorter(Block &block, unsigned loadBatch)
      : block(block), loadBatch(loadBatch) {}

  unsigned run() {
    SmallVector<Operation *> anchors;
    unsigned loads = 0;
    for (Operation &op : block)
      if (!isFree(&op)) {
        anchors.push_back(&op);
        loads += isa<LLVM::LoadOp>(op);
      }
    const bool batched = loadBatch > 0 && loads > 2 * loadBatch;
    unsigned sinceFlush = 0;
    for (auto [position, anchor] : llvm::enumerate(anchors)) {
      placeNeedsOf(anchor);
      placed.insert(anchor);
      order.push_back(anchor);
      if (batched && isa<LLVM::LoadOp>(anchor) && ++sinceFlush == loadBatch) {
        placeReadyArithmetic(ArrayRef(anchors).drop_front(position + 1));
        sinceFlush = 0;
      }
    }
    // What no anchor needs is dead: only other unplaced free ops use it.
    SmallVector<Operation *> dead;
    for (Operation &op : block)
      if (!placed.contains(&op) && isFree(&op))
        dead.push_back(&op);
    for (Operation *op : dead)
      op->dropAllUses();
    for (Operation *op : dead)
      op->erase();
    for (Operation *op : order)
      op->moveBefore(&block, block.end());
    return dead.size();
  }

private:
  /// Places the free ops `anchor` needs, its regions' needs too.
  void placeNeedsOf(Operation *anchor) {
    placeOperandsOf(anchor);
    // Values used inside the anchor's regions are needed before it too.
    anchor->walk([&](Operation *nested) {
      if (nested != anchor)
        placeOperandsOf(nested);
    });
  }

  /// Places, in the order the `later` anchors need them (their operands'
  /// trees, depth first in operand order), the unplaced free ops that read
  /// a loaded value and whose operands are all available now: the
  /// arithmetic a batch of loads makes ready, and nothing else (not the
  /// address arithmetic of loads still to come).
  void placeReadyArithmetic(ArrayRef<Operation *> later) {
    // Whether each unplaced free op could be placed now (ready) and reads
    // a loaded value (loaded), computed once per batch, post-order.
    struct Status {
      bool ready = true, loaded = false;
    };
    llvm::DenseMap<Operation *, Status> status;
    auto statusOf = [&](Operation *root) -> Status {
      SmallVector<std::pair<Operation *, unsigned>> stack = {{root, 0}};
      while (!stack.empty()) {
        auto &[op, next] = stack.back();
        if (next < op->getNumOperands()) {
          Operation *def = unplacedFreeDefinition(op->getOperand(next++));
          if (def && !status.count(def))
            stack.push_back({def, 0});
          continue;
        }
        Status own;
        for (Value operand : op->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || def->getBlock() != &block)
            continue;
          if (Operation *free = unplacedFreeDefinition(operand)) {
            own.ready &= status.lookup(free).ready;
            own.loaded |= status.lookup(free).loaded;
          } else if (!placed.contains(def)) {
            own.ready = false; // an anchor still to come
          } else {
            own.loaded |= isa<LLVM::LoadOp>(def) || loaded.contains(def);
          }
        }
        status[op] = own;
        stack.pop_back();
      }
      return status.lookup(root);
    };
    auto visit = [&](Operation *user) {
      SmallVector<Operation *> stack;
      for (Value operand : llvm::reverse(user->getOperands()))
        if (Operation *def = unplacedFreeDefinition(operand))
          stack.push_back(def);
      while (!stack.empty()) {
        Operation *op = stack.pop_back_val();
        if (placed.contains(op))
          continue;
        Status own = statusOf(op);
        if (own.ready && own.loaded) {
          const size_t first = order.size();
          placeOperandsOf(op);
          placed.insert(op);
          order.push_back(op);
          for (Operation *now : ArrayRef(order).drop_front(first))
            if (status.lookup(now).loaded)
              loaded.insert(now);
          continue;
        }
        if (own.ready)
          continue; // needs no load: left where its user wants it
        for (Value operand : llvm::reverse(op->getOperands()))
          if (Operation *def = unplacedFreeDefinition(operand))
            stack.push_back(def);
      }
    };
    for (Operation *anchor : later) {
      visit(anchor);
      anchor->walk([&](Operation *nested) {
        if (nested != anchor)
          visit(nested);
      });
    }
  }

  /// The free op of this block defining `value`, if it is not placed yet.
  Operation *unplacedFreeDefinition(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &block || placed.contains(def) ||
        !isFree(def))
      return nullptr;
    return def;
  }

  /// Places the free ops `user`'s operands need, depth first; an explicit
  /// stack, since a chain can be a hundred thousand ops long.
  void placeOperandsOf(Operation *user) {
    SmallVector<std::pair<Operation *, unsigned>> stack;
    for (Value operand : user->getOperands()) {
      Operation *root = unplacedFreeDefinition(operand);
      if (!root)
        continue;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        auto &[op, next] = stack.back();
        if (next < op->getNumOperands()) {
          Operation *def = unplacedFreeDefinition(op->getOperand(next++));
          // An op on the stack is not placed yet but must not be entered
          // twice: SSA dominance rules out cycles among a block's free ops.
          if (def)
            stack.push_back({def, 0});
          continue;
        }
        Operation *done = op;
        stack.pop_back();
        if (placed.insert(done).second)
          order.push_back(done);
      }
    }
  }

  Block &block;
  const unsigned loadBatch;
  llvm::DenseSet<Operation *> placed;
  /// Free ops placed by placeReadyArithmetic that read a loaded value,
  /// directly or through other free ops.
  llvm::DenseSet<Operation *> loaded;
  SmallVector<Operation *> order;
};

} // namespace

unsigned sortIntoCanonicalOrder(Operation *root, unsigned loadBatch) {
  // Inner blocks first: an anchor's walk then sees its regions in their
  // final order.
  SmallVector<Block *> blocks;
  root->walk<WalkOrder::PostOrder>(
      [&](Block *block) { blocks.push_back(block); });
  unsigned erased = 0;
  for (Block *block : blocks)
    erased += BlockSorter(*block, loadBatch).run();
  return erased;
}

} // namespace opfuse
