//===- IndexedEvaluator.h - Group bodies evaluated at indices ---*- C++ -*-===//
//
// What the view and tiled-transpose emitters share: every value of a group
// evaluated at an index in its own shape, derived from a consumer's index
// through the ops between them (a transpose permutes it, a slice scales
// and offsets it, a reshape re-linearises it, a broadcast drops and zeroes
// dimensions, a concat picks the input whose range holds it, a gather
// reads the index there first). An index dimension knows how it moves from
// one lane of the vector to the next and what is known of its residue, so
// an input whose lanes are consecutive and aligned is read as one vector,
// others lane by lane.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_INDEXEDEVALUATOR_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_INDEXEDEVALUATOR_H

#include "GroupEvaluator.h"
#include "KernelBuilder.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <map>
#include <memory>

namespace opfuse {

/// One dimension of an index: lane 0's value, how far it moves per lane of
/// the vector, and a congruence: value = residue (mod modulus), or exactly
/// residue when modulus is 0.
struct IndexDim {
  mlir::Value value;
  int64_t laneStride = 0;
  int64_t modulus = 1;
  int64_t residue = 0;
};

/// An index into a value of shape `shape`.
struct Index {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<IndexDim> dims;
};

/// value * factor + offset, on congruences (the value itself is not built).
IndexDim scaleCongruence(const IndexDim &in, int64_t factor, int64_t offset);

/// The emission state shared by every evaluator of one kernel.
class ViewKernel {
public:
  ViewKernel(fuse::GroupOp group, mlir::OpBuilder &b, KernelBuilder &kb,
             mlir::gpu::GPUFuncOp func, int64_t vec)
      : group(group), body(group.getBody().front()), b(b), loc(group.getLoc()),
        kb(kb), func(func), vec(vec) {}

  int intern(Index index) {
    for (auto [id, known] : llvm::enumerate(indices)) {
      if (known.shape != index.shape || known.dims.size() != index.dims.size())
        continue;
      bool same = true;
      for (auto [x, y] : llvm::zip(known.dims, index.dims))
        same &= x.value == y.value && x.laneStride == y.laneStride;
      if (same)
        return id;
    }
    indices.push_back(std::move(index));
    return indices.size() - 1;
  }
  const Index &index(int id) const { return indices[id]; }

  IndexDim constantDim(int64_t value) {
    return {kb.constant(value), 0, 0, value};
  }

  /// The index of a value of `shape` that `index` (of another shape) reads:
  /// the same, a NumPy broadcast of it, or (equal element counts) the same
  /// element in row-major order.
  Index convert(const Index &index, llvm::ArrayRef<int64_t> shape);
  /// The row-major linear offset of `index`.
  IndexDim linearize(const Index &index);
  /// `linear` as an index of `shape`.
  Index delinearize(const IndexDim &linear, llvm::ArrayRef<int64_t> shape);

  /// Loads input `argument` at `index` (where `loadGuard` is set and fails,
  /// its element 0 instead, which the concat never selects).
  GroupEvaluator::Lanes load(mlir::BlockArgument argument, const Index &index);

  fuse::GroupOp group;
  mlir::Block &body;
  mlir::OpBuilder &b;
  mlir::Location loc;
  KernelBuilder &kb;
  mlir::gpu::GPUFuncOp func;
  const int64_t vec;
  /// Set when the lanes cannot be followed: the kernel is emitted again
  /// with one element per thread.
  bool lanesLost = false;
  /// While set (an i1), loads read their input's element 0 where it fails: a
  /// concat's inputs evaluated side by side, each read only in its own range
  /// (ViewEvaluator::concat).
  mlir::Value loadGuard;

private:
  std::vector<Index> indices;
};

/// Indices converted to other shapes, by (index, shape): a conversion
/// through a reshape builds arithmetic, which is built once per scope.
using ConversionCache =
    std::map<std::pair<int, llvm::SmallVector<int64_t>>, int>;

/// Evaluates values at indices (contexts are interned indices).
class ViewEvaluator : public GroupEvaluator {
public:
  ViewEvaluator(ViewKernel &kernel, Memo &memo, ConversionCache &conversions)
      : GroupEvaluator(kernel.b, kernel.vec, memo, kernel.kb.strictNumerics()),
        kernel(kernel), conversions(conversions) {}

  /// Evaluates `value` at `index`.
  mlir::FailureOr<Lanes> evaluateAt(mlir::Value value, Index index) {
    return evaluate(value, kernel.intern(std::move(index)));
  }

protected:
  int keyContext(mlir::Value value, int context) override {
    return ownContext(value, context);
  }
  int operandContext(mlir::Operation *op, int context) override {
    return keyContext(op->getResult(0), context);
  }
  mlir::FailureOr<std::optional<Lanes>> provide(mlir::Value value,
                                                int context) override;
  /// Lanes a subclass supplies for `value` at its `index` (a value read
  /// from shared memory, say), nullopt for the views' own.
  virtual mlir::FailureOr<std::optional<Lanes>>
  provideFirst(mlir::Value value, const Index &index) {
    return std::optional<Lanes>();
  }
  /// An evaluator like this one for a branch, with its own memo.
  virtual std::unique_ptr<ViewEvaluator>
  makeBranch(Memo &memo, ConversionCache &conversions) {
    return std::make_unique<ViewEvaluator>(kernel, memo, conversions);
  }

  ViewKernel &kernel;

private:
  /// `context` as an index of `value`'s own shape.
  int ownContext(mlir::Value value, int context) {
    auto shape = mlir::cast<mlir::RankedTensorType>(value.getType()).getShape();
    auto key = std::make_pair(context, llvm::SmallVector<int64_t>(shape));
    auto known = conversions.find(key);
    if (known != conversions.end())
      return known->second;
    int id = kernel.intern(kernel.convert(kernel.index(context), shape));
    conversions[key] = id;
    return id;
  }
  mlir::FailureOr<Lanes> concat(fuse::ConcatOp op, const Index &index);
  mlir::FailureOr<Lanes> gather(fuse::GatherOp op, const Index &index);

  ConversionCache &conversions;
};

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_INDEXEDEVALUATOR_H
