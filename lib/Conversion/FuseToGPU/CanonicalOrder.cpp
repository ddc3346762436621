//===- CanonicalOrder.cpp - Op order of a kernel independent of C++ -------===//
//
// A block is rebuilt from its anchors (ops with effects, regions or a
// terminator role), in their order: before each anchor come the
// side-effect-free ops it needs that are not placed yet, in depth-first
// post-order over operands. Anchors are statements of the emitters (their
// order is the order of the C++ statements that build them), so the result
// does not depend on how the free ops between them were interleaved.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/CanonicalOrder.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Region.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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
  explicit BlockSorter(Block &block) : block(block) {}

  unsigned run() {
    SmallVector<Operation *> anchors;
    for (Operation &op : block)
      if (!isFree(&op))
        anchors.push_back(&op);
    for (Operation *anchor : anchors) {
      placeOperandsOf(anchor);
      // Values used inside the anchor's regions are needed before it too.
      anchor->walk([&](Operation *nested) {
        if (nested != anchor)
          placeOperandsOf(nested);
      });
      order.push_back(anchor);
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
  llvm::DenseSet<Operation *> placed;
  SmallVector<Operation *> order;
};

} // namespace

unsigned sortIntoCanonicalOrder(Operation *root) {
  // Inner blocks first: an anchor's walk then sees its regions in their
  // final order.
  SmallVector<Block *> blocks;
  root->walk<WalkOrder::PostOrder>(
      [&](Block *block) { blocks.push_back(block); });
  unsigned erased = 0;
  for (Block *block : blocks)
    erased += BlockSorter(*block).run();
  return erased;
}

} // namespace opfuse
