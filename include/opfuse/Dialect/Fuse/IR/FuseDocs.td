//===- FuseDocs.td - The dialect reference's sources -------*- tablegen -*-===//
//
// The ops and the attributes together, for -gen-dialect-doc only.
//
//===----------------------------------------------------------------------===//

include "opfuse/Dialect/Fuse/IR/FuseOps.td"
include "opfuse/Dialect/Fuse/IR/FuseAttributes.td"
