//===- FuseTraits.h - Operator-class traits of the fuse dialect -*- C++ -*-===//
//
// The three operator classes (compute-, memory-, communication-bound) and the
// broadcasting-elementwise marker. They carry no verification: they are facts
// the cost model and the fusion passes read.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSETRAITS_H
#define OPFUSE_DIALECT_FUSE_IR_FUSETRAITS_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace opfuse::fuse {

/// Limited by arithmetic throughput (tensor cores, FMA units).
template <typename ConcreteType>
class ComputeBound
    : public mlir::OpTrait::TraitBase<ConcreteType, ComputeBound> {};

/// Limited by bytes through device memory.
template <typename ConcreteType>
class MemoryBound : public mlir::OpTrait::TraitBase<ConcreteType, MemoryBound> {
};

/// Limited by bandwidth of the links between devices.
template <typename ConcreteType>
class CommunicationBound
    : public mlir::OpTrait::TraitBase<ConcreteType, CommunicationBound> {};

/// Applies independently per element after NumPy broadcasting of operands.
template <typename ConcreteType>
class BroadcastElementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, BroadcastElementwise> {};

namespace detail {
/// Checks `op`'s result types against `inferred`, naming the first mismatch.
mlir::LogicalResult verifyInferredTypes(mlir::Operation *op,
                                        llvm::ArrayRef<mlir::Type> inferred);
} // namespace detail

/// Verifies an op with its own shape rules before InferTypeOpInterface's
/// generic check, so a shape error is reported once and precisely.
template <typename ConcreteType>
class ShapeRules : public mlir::OpTrait::TraitBase<ConcreteType, ShapeRules> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    llvm::SmallVector<mlir::Type> inferred;
    if (mlir::failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(),
            typename ConcreteType::Adaptor(mlir::cast<ConcreteType>(op)),
            inferred)))
      return mlir::failure();
    return detail::verifyInferredTypes(op, inferred);
  }
};

enum class OperatorClass { Compute, Memory, Communication };

/// The class trait `op` carries, or nullopt for structural and foreign ops.
std::optional<OperatorClass> getOperatorClass(mlir::Operation *op);

/// "compute", "memory" or "communication".
llvm::StringRef stringifyOperatorClass(OperatorClass cls);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_FUSETRAITS_H
