//===- ModelLoader.cpp - Read and check an opfuse model -------------------===//
//
// Turns a path into a verified module of fuse functions, or into a diagnostic
// with a location and the exit code of its failure class. Checks what the
// verifier cannot see: that the input is text at all, that it holds a
// function, and that function signatures are static tensors.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "opfuse/Support/NestingDepth.h"

using namespace mlir;

namespace opfuse {

namespace {
/// Rejects input that is not MLIR text or bytecode before the parser sees
/// it: the lexer stops at a NUL byte, so garbage could parse as empty.
LogicalResult checkIsText(llvm::SourceMgr &sourceMgr, MLIRContext &context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  if (text.starts_with("ML\xefR"))
    return success(); // MLIR bytecode.
  if (text.starts_with("\xef\xbb\xbf")) {
    // Editors on Windows write one; MLIR's lexer stops at it.
    emitError(
        FileLineColLoc::get(&context, buffer->getBufferIdentifier(), 1, 1))
        << "the file starts with a UTF-8 byte-order mark (bytes EF BB BF), "
           "which MLIR text must not hold: save the file without it";
    return failure();
  }
  if (text.trim().empty()) {
    emitError(
        FileLineColLoc::get(&context, buffer->getBufferIdentifier(), 1, 1))
        << "input is empty: expected a module with a func.func of fuse ops";
    return failure();
  }
  const llvm::UTF8 *bad = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  (void)llvm::isLegalUTF8String(
      &bad, reinterpret_cast<const llvm::UTF8 *>(text.end()));
  const char *at = reinterpret_cast<const char *>(bad);
  size_t nul = text.find('\0');
  if (nul != llvm::StringRef::npos)
    at = std::min(at, text.begin() + nul);
  if (at != text.end()) {
    // Printed directly: the diagnostic handler would echo the binary line.
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(at), sourceMgr.getMainFileID());
    llvm::errs() << buffer->getBufferIdentifier() << ":" << line << ":"
                 << column << ": error: input is not MLIR text: byte "
                 << llvm::format_hex(static_cast<unsigned char>(*at), 4)
                 << " at offset " << (at - text.begin()) << "\n";
    return failure();
  }
  if (std::optional<size_t> deep =
          findExcessiveNesting(text, TextSyntax::Mlir)) {
    // MLIR's parser recurses per bracket and would overflow the stack.
    // Printed directly: the diagnostic handler would echo the whole line.
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text.begin() + *deep),
        sourceMgr.getMainFileID());
    llvm::errs() << buffer->getBufferIdentifier() << ":" << line << ":"
                 << column << ": error: brackets nest deeper than "
                 << kMaxNestingDepth
                 << " levels here; no model needs that many, and the parser "
                    "would exhaust its stack\n";
    return failure();
  }
  return success();
}

/// A dense_resource weight must come with its bytes in the file.
LogicalResult checkResourceData(fuse::ConstantOp constant) {
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  if (!resource)
    return success();
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  const int64_t needed = fuse::getByteSize(constant.getType());
  if (!blob)
    return constant.emitError("dense_resource<")
           << resource.getRawHandle().getKey()
           << "> has no data: the file's dialect_resources section does not "
              "define it";
  if (static_cast<int64_t>(blob->getData().size()) < needed)
    return constant.emitError("dense_resource<")
           << resource.getRawHandle().getKey() << "> holds "
           << blob->getData().size() << " bytes but " << constant.getType()
           << " needs " << needed;
  return success();
}

/// Whether a tensor's bytes can be counted, addressed and allocated:
/// elements and bytes below 2^62 (size arithmetic has room to add and
/// round up without wrapping).
bool sizeFits(RankedTensorType type) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  uint64_t count = 1;
  for (int64_t dim : type.getShape()) {
    if (dim != 0 && count > kLimit / static_cast<uint64_t>(dim))
      return false;
    count *= static_cast<uint64_t>(dim);
  }
  const uint64_t elementBytes =
      type.getElementType().isIntOrFloat()
          ? (type.getElementType().getIntOrFloatBitWidth() + 7) / 8
          : 1;
  return count <= kLimit / std::max<uint64_t>(elementBytes, 1);
}

/// A model function: static tensor signature, only fuse ops and a return.
LogicalResult checkFunction(func::FuncOp func) {
  auto checkTypes = [&](TypeRange types, StringRef what) -> LogicalResult {
    for (auto [index, type] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return func.emitError("function @")
               << func.getSymName() << " " << what << " #" << index
               << " has type " << type
               << "; opfuse models take and return ranked tensors";
      if (!tensor.hasStaticShape())
        return func.emitError("function @")
               << func.getSymName() << " " << what << " #" << index
               << " has type " << type
               << " with a dynamic dimension; opfuse needs static shapes";
      if (!sizeFits(tensor))
        return func.emitError("function @")
               << func.getSymName() << " " << what << " #" << index
               << " has type " << type
               << ", whose size overflows: opfuse tensors hold fewer than "
                  "2^62 bytes";
    }
    return success();
  };
  if (func.isExternal())
    return func.emitError("function @")
           << func.getSymName() << " has no body; opfuse compiles definitions";
  if (failed(checkTypes(func.getArgumentTypes(), "argument")) ||
      failed(checkTypes(func.getResultTypes(), "result")))
    return failure();
  WalkResult walk = func.getBody().walk([](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && tensor.hasStaticShape() && !sizeFits(tensor)) {
        op->emitError("result type ")
            << type << " overflows: opfuse tensors hold fewer than 2^62 bytes";
        return WalkResult::interrupt();
      }
    if (auto constant = dyn_cast<fuse::ConstantOp>(op))
      if (failed(checkResourceData(constant)))
        return WalkResult::interrupt();
    if (isa<fuse::FuseDialect>(op->getDialect()) || isa<func::ReturnOp>(op))
      return WalkResult::advance();
    op->emitError("'")
        << op->getName()
        << "' is not a fuse op; opfuse models hold fuse ops and func.return";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}
} // namespace

OwningOpRef<ModuleOp> loadModel(llvm::StringRef path, MLIRContext &context,
                                llvm::SourceMgr &sourceMgr,
                                ExitCode &exitCode) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    llvm::errs() << "opt-fuse: error: " << error << "\n";
    exitCode = ExitIO;
    return nullptr;
  }
  return loadModel(std::move(file), context, sourceMgr, exitCode);
}

OwningOpRef<ModuleOp> loadModel(std::unique_ptr<llvm::MemoryBuffer> file,
                                MLIRContext &context,
                                llvm::SourceMgr &sourceMgr,
                                ExitCode &exitCode) {
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  exitCode = ExitInvalidInput;
  if (failed(checkIsText(sourceMgr, context)))
    return nullptr;

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return nullptr;
  auto functions = module->getOps<func::FuncOp>();
  if (functions.empty()) {
    // An implicit module has no position of its own: point at the file.
    llvm::StringRef name = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                               ->getBufferIdentifier();
    emitError(FileLineColLoc::get(&context, name, 1, 1))
        << "input holds no func.func: nothing to compile";
    return nullptr;
  }
  for (func::FuncOp func : functions)
    if (failed(checkFunction(func)))
      return nullptr;
  exitCode = ExitSuccess;
  return module;
}

namespace {
/// "NAME=1x3x224x224" into the importer's options; false after an error.
bool parseInputShapes(const std::vector<std::string> &specs,
                      OnnxImportOptions &import) {
  for (const std::string &spec : specs) {
    auto [name, dims] = llvm::StringRef(spec).rsplit('=');
    llvm::SmallVector<int64_t> shape;
    bool ok = !name.empty() && !dims.empty() && dims != spec;
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t d = 0;
      ok &= !part.getAsInteger(10, d) && d > 0 && d < (int64_t(1) << 40);
      shape.push_back(d);
    }
    if (!ok) {
      llvm::errs() << "opt-fuse: error: --input-shape '" << spec
                   << "' is not NAME=DxDx... with positive dimensions\n";
      return false;
    }
    import.inputShapes[name] = shape;
  }
  return true;
}
} // namespace

bool isOnnxInput(const DriverOptions &options, bool &textFormat) {
  const bool byName = isOnnxPath(options.inputPath, textFormat);
  return options.importFormat == "onnx" ||
         (options.importFormat == "auto" && byName);
}

OwningOpRef<ModuleOp> loadAnyModel(const DriverOptions &options,
                                   MLIRContext &context,
                                   llvm::SourceMgr &sourceMgr,
                                   ExitCode &exitCode) {
  bool textFormat = false;
  if (!isOnnxInput(options, textFormat)) {
    if (!options.inputShapes.empty()) {
      llvm::errs() << "opt-fuse: error: --input-shape applies to ONNX "
                      "models; fuse functions have static shapes\n";
      exitCode = ExitUsage;
      return nullptr;
    }
    return loadModel(options.inputPath, context, sourceMgr, exitCode);
  }
  OnnxImportOptions import;
  if (!parseInputShapes(options.inputShapes, import)) {
    exitCode = ExitUsage;
    return nullptr;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(options.inputPath, &error);
  if (!file) {
    llvm::errs() << "opt-fuse: error: " << error << "\n";
    exitCode = ExitIO;
    return nullptr;
  }
  OnnxImportFailure failure = OnnxImportFailure::None;
  OwningOpRef<ModuleOp> module =
      importOnnx(*file, textFormat, context, import, failure);
  if (!module) {
    exitCode = failure == OnnxImportFailure::Unsupported  ? ExitUnsupported
               : failure == OnnxImportFailure::Unreadable ? ExitIO
                                                          : ExitInvalidInput;
    return nullptr;
  }
  exitCode = ExitInvalidInput;
  for (func::FuncOp func : module->getOps<func::FuncOp>())
    if (failed(checkFunction(func)))
      return nullptr;
  exitCode = ExitSuccess;
  return module;
}

} // namespace opfuse
