//===- Artifact.h - PTX and launch plan from a compiled module --*- C++ -*-===//
//
// What a compiled module hands to the runtime: the PTX text of its kernels
// and the launch plan of its function.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_TARGET_ARTIFACT_H
#define OPFUSE_TARGET_ARTIFACT_H

#include "opfuse/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace opfuse {

/// The plan's name for an MLIR element type; nullopt when it has none.
std::optional<DType> toDType(mlir::Type type);

/// The device bytes of a fuse.constant (`constantOp`): dense literals
/// element by element, resources (an importer's weights) as stored; an
/// error at the op when it has neither.
mlir::FailureOr<std::vector<uint8_t>>
encodeConstant(mlir::Operation *constantOp);

/// The PTX of gpu.binary @opfuse_kernels (format=isa). Fails, naming it,
/// when a libdevice function was left unresolved.
mlir::FailureOr<std::string> extractPtx(mlir::ModuleOp module);

/// The names of a function's inputs and outputs that the user knows: an
/// importer's (fuse.name), argN and resultN where one has none; both empty
/// when nothing is named (the plan then says argN and resultN itself).
struct FunctionIoNames {
  std::vector<std::string> inputs, outputs;
};
FunctionIoNames functionIoNames(mlir::func::FuncOp func);

/// The launch plan of the module's first function after convert-fuse-to-gpu.
mlir::FailureOr<LaunchPlan> buildLaunchPlan(mlir::ModuleOp module);

} // namespace opfuse

#endif // OPFUSE_TARGET_ARTIFACT_H
