//===- OnnxImporter.h - ONNX models as fuse functions -----------*- C++ -*-===//
//
// Reads an ONNX model (the binary protobuf of a .onnx file, or its text
// form, .onnxtxt) and builds one func.func of fuse ops: graph inputs become
// arguments, initializers constants, nodes ops, graph outputs results. Each
// op's location names its ONNX node. Shapes are static: dimensions the model
// leaves dynamic are fixed with --input-shape, and shape computations
// (Shape, Gather, Concat, Unsqueeze feeding a Reshape) fold to constants.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_IMPORT_ONNXIMPORTER_H
#define OPFUSE_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <string>

namespace opfuse {

/// ONNX opsets of the default domain the importer reads.
constexpr int64_t kMinOnnxOpset = 13, kMaxOnnxOpset = 21;

struct OnnxImportOptions {
  /// --input-shape NAME=1x3x224x224: the shape of a graph input whose
  /// dimensions the model leaves dynamic (or to override them).
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// The name of the function built.
  std::string functionName = "main";
};

/// Why an import failed: the model is not ONNX or is invalid (exit 1), a
/// file it names (external data) cannot be read (exit 3), or it is valid
/// and uses ops the importer does not have (exit 4).
enum class OnnxImportFailure { None, Invalid, Unreadable, Unsupported };

/// Imports `buffer` (named `path` in diagnostics); text form when
/// `textFormat`. Diagnostics go to the context's handler; every
/// unsupported op of the model is reported in one run.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(const llvm::MemoryBuffer &buffer,
                                             bool textFormat,
                                             mlir::MLIRContext &context,
                                             const OnnxImportOptions &options,
                                             OnnxImportFailure &failure);

/// Whether `path` names an ONNX model by its extension (.onnx, .onnxtxt),
/// and which form.
bool isOnnxPath(llvm::StringRef path, bool &textFormat);

} // namespace opfuse

#endif // OPFUSE_IMPORT_ONNXIMPORTER_H
