//===- FuseInterfaces.cpp - CostInterface and operator classes ------------===//
//
// The default byte counts of CostInterface and the lookup of an op's class.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseInterfaces.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/FuseTraits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace opfuse::fuse {

int64_t detail::defaultBytesRead(Operation *op) {
  // A value used twice (x * x) is read once.
  int64_t bytes = 0;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Value operand : op->getOperands())
    if (seen.insert(operand).second)
      bytes += getByteSize(operand.getType());
  return bytes;
}

int64_t detail::defaultBytesWritten(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getResultTypes())
    bytes += getByteSize(type);
  return bytes;
}

LogicalResult detail::verifyInferredTypes(Operation *op,
                                          ArrayRef<Type> inferred) {
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(op->getResultTypes(), inferred))) {
    auto [actual, expected] = pair;
    if (actual != expected)
      return op->emitOpError("result #")
             << index << " has type " << actual
             << " but the operands and attributes give " << expected;
  }
  return success();
}

std::optional<OperatorClass> getOperatorClass(Operation *op) {
  if (op->hasTrait<ComputeBound>())
    return OperatorClass::Compute;
  if (op->hasTrait<MemoryBound>())
    return OperatorClass::Memory;
  if (op->hasTrait<CommunicationBound>())
    return OperatorClass::Communication;
  return std::nullopt;
}

StringRef stringifyOperatorClass(OperatorClass cls) {
  switch (cls) {
  case OperatorClass::Compute:
    return "compute";
  case OperatorClass::Memory:
    return "memory";
  case OperatorClass::Communication:
    return "communication";
  }
  llvm_unreachable("unknown operator class");
}

} // namespace opfuse::fuse

#include "opfuse/Dialect/Fuse/IR/FuseInterfaces.cpp.inc"
