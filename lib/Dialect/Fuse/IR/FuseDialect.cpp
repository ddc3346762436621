//===- FuseDialect.cpp - The fuse dialect ---------------------------------===//
//
// Registers the ops and attributes and materialises folded constants as
// fuse.constant.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;
using namespace opfuse::fuse;

#include "opfuse/Dialect/Fuse/IR/FuseDialect.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "opfuse/Dialect/Fuse/IR/FuseOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *FuseDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
