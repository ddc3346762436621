//===- FuseInterfaces.td - Interfaces and traits -----------*- tablegen -*-===//
//
// CostInterface (FLOPs and bytes of one op) and the three operator-class
// traits every computational fuse op carries exactly one of.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_TD
#define OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Fuse_CostInterface : OpInterface<"CostInterface"> {
  let cppNamespace = "::opfuse::fuse";
  let description = [{
    The work an operator does for its static shapes, as the roofline model
    sees it: floating-point (or integer) operations and bytes moved through
    device memory when the op runs as a kernel of its own. Counts are exact
    integers; the formula of each op is in its description and in
    docs/cost-model.md. i1 elements count as one byte.
  }];

  let methods = [
    InterfaceMethod<
      "Arithmetic operations performed (a multiply-add counts as two).",
      "int64_t", "getFlops">,
    InterfaceMethod<
      "Bytes read from device memory when the op runs alone.",
      "int64_t", "getBytesRead", (ins), [{}], [{
        return ::opfuse::fuse::detail::defaultBytesRead($_op.getOperation());
      }]>,
    InterfaceMethod<
      "Bytes written to device memory when the op runs alone.",
      "int64_t", "getBytesWritten", (ins), [{}], [{
        return ::opfuse::fuse::detail::defaultBytesWritten($_op.getOperation());
      }]>,
    InterfaceMethod<
      "Bytes each participating device sends over its links (collectives only).",
      "int64_t", "getCommunicationBytes", (ins), [{}], [{ return 0; }]>,
  ];
}

// The operator classes, one per computational op (see FuseTraits.h).
def Fuse_ComputeBound : NativeOpTrait<"ComputeBound"> {
  let cppNamespace = "::opfuse::fuse";
}
def Fuse_MemoryBound : NativeOpTrait<"MemoryBound"> {
  let cppNamespace = "::opfuse::fuse";
}
def Fuse_CommunicationBound : NativeOpTrait<"CommunicationBound"> {
  let cppNamespace = "::opfuse::fuse";
}
// Applies independently to each element after NumPy broadcasting; the fusion
// passes chain these. Unlike upstream `Elementwise`, operands may broadcast.
def Fuse_BroadcastElementwise : NativeOpTrait<"BroadcastElementwise"> {
  let cppNamespace = "::opfuse::fuse";
}
// Runs the op's shape rules (its inferReturnTypes) with diagnostics on and
// checks the result types against them. Listed before InferTypeOpAdaptor so a
// broken op gets one precise error instead of InferTypeOpInterface's generic
// "failed to infer returned types".
def Fuse_ShapeRules : NativeOpTrait<"ShapeRules"> {
  let cppNamespace = "::opfuse::fuse";
}

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEINTERFACES_TD
