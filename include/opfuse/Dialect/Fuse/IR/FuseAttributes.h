//===- FuseAttributes.h - Attributes of the fuse dialect --------*- C++ -*-===//
//
// Declares the typed attributes passes exchange (generated from
// FuseAttributes.td) and the accessors of the discardable attributes that
// hold them, so that no pass spells an attribute name.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_H
#define OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "opfuse/Dialect/Fuse/IR/FuseAttrEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h.inc"

namespace opfuse::fuse {

/// Custom parameters of the attributes' assembly formats.
mlir::FailureOr<llvm::APFloat> parseF64Parameter(mlir::AsmParser &parser);
mlir::FailureOr<llvm::SmallVector<int64_t>>
parseI64ArrayParameter(mlir::AsmParser &parser);
void printI64ArrayParameter(mlir::AsmPrinter &printer,
                            llvm::ArrayRef<int64_t> values);

/// The tensor maps a group's `fuse.tensor_maps` lists, in parameter order
/// (empty without one).
llvm::SmallVector<TensorMapAttr> getTensorMaps(mlir::Operation *op);

/// The GPU target `op` is compiled for: the `fuse.target` of the module
/// that holds it (or of `op` itself), else the built-in h200.
GpuTarget getTarget(mlir::Operation *op);

/// The most SMs a `fuse.overlap_sms` may set aside: past half of a GPU's
/// SMs the GEMM beside the collective would lose more than it hides.
inline constexpr int64_t kMaxOverlapSms = 64;

/// The SMs the GEMM kernel `kernelOp` (a fuse.group or a lone contraction)
/// leaves to a collective that runs beside it: the `fuse.overlap_sms` of
/// the group or of a contraction in it; 0 when it has none.
int64_t getOverlapSms(mlir::Operation *kernelOp);

/// `target` with `sms` of its SMs set aside (0 leaves it as it is): fewer
/// SMs, and its throughputs (FLOP/s, L2 and HBM bandwidth) scaled by the
/// share left, so that each SM keeps its rates. What a GEMM kernel sized
/// by getOverlapSms is tiled and priced on.
GpuTarget withSmsSetAside(GpuTarget target, int64_t sms);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_H
