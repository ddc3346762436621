//===- CanonicalOrder.h - Op order of a kernel independent of C++ -*- C++ -*-=//
//
// The emitters build kernels with nested builder calls such as
// add(mul(a, b), divu(c, 8)), and C++ leaves the order in which a call's
// arguments are evaluated to the compiler (GCC right to left, clang left
// to right). The same kernel then comes out with its side-effect-free ops
// in another order, and its PTX differs byte for byte between two builds
// of opfuse. Putting every such op in one order fixed by the kernel's
// dataflow makes the PTX a function of the model alone.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_CANONICALORDER_H
#define OPFUSE_CONVERSION_FUSETOGPU_CANONICALORDER_H

#include "mlir/IR/Operation.h"

namespace opfuse {

/// Reorders every block nested in `root`: ops with memory effects, regions
/// or a terminator role keep their relative order; each side-effect-free
/// op moves to just before the first of them that needs it (directly or
/// from inside its regions), its own operands placed first, in operand
/// order. Side-effect-free ops that nothing needs are erased. Returns the
/// number erased. Linear in the size of the IR (times its nesting depth)
/// and iterative, so chains of any length are safe.
///
/// With a `loadBatch`, a block of more than twice that many llvm.load ops
/// gets, after every `loadBatch` of them, the free ops that read a loaded
/// value and can be computed then (in the order the later anchors need
/// them), so that a kernel of many loads does not hold all of them at
/// once; the order is still a function of the IR alone. That costs
/// O(size of the block) per batch.
unsigned sortIntoCanonicalOrder(mlir::Operation *root, unsigned loadBatch = 0);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_CANONICALORDER_H
