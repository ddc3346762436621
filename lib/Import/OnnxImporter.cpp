//===- OnnxImporter.cpp - ONNX models as fuse functions -------------------===//
//
// Parses the protobuf (binary, or the text form with the line and column
// of a syntax error) and hands the model to GraphImporter.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Import/OnnxImporter.h"

#include "GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

using namespace mlir;

namespace opfuse {

namespace {
/// Keeps the first syntax error of the text form, with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, int column, const std::string &message) override {
    if (!seen) {
      seen = true;
      this->line = line;
      this->column = column;
      this->message = message;
    }
  }
  bool seen = false;
  int line = 0, column = 0;
  std::string message;
};
} // namespace

bool isOnnxPath(llvm::StringRef path, bool &textFormat) {
  textFormat = path.ends_with(".onnxtxt");
  return textFormat || path.ends_with(".onnx");
}

OwningOpRef<ModuleOp> importOnnx(const llvm::MemoryBuffer &buffer,
                                 bool textFormat, MLIRContext &context,
                                 const OnnxImportOptions &options,
                                 OnnxImportFailure &failure) {
  failure = OnnxImportFailure::Invalid;
  llvm::StringRef path = buffer.getBufferIdentifier();
  onnx::ModelProto model;
  if (textFormat) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(buffer.getBuffer().str(), &model)) {
      // The tokenizer counts lines and columns from 0.
      emitError(FileLineColLoc::get(&context, path, errors.line + 1,
                                    errors.column + 1))
          << "not an ONNX model in protobuf text form: " << errors.message;
      return nullptr;
    }
  } else if (!model.ParseFromArray(buffer.getBufferStart(),
                                   static_cast<int>(buffer.getBufferSize())) ||
             !model.has_graph()) {
    emitError(FileLineColLoc::get(&context, path, 0, 0))
        << "not an ONNX model: the file does not parse as an ONNX "
           "ModelProto with a graph (truncated, or another format)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(FileLineColLoc::get(&context, path, 0, 0))
        << "the ONNX model has no graph";
    return nullptr;
  }
  onnx_import::GraphImporter importer(context, model, options, path);
  return importer.run(failure);
}

} // namespace opfuse
