//===- GraphImporter.h - One ONNX graph as one fuse function ----*- C++ -*-===//
//
// The state of an import, shared by the walk over the graph
// (GraphImporter.cpp) and the per-op converters (Converters*.cpp): what
// each ONNX name stands for, the builder, attribute readers, and the
// constants folded on the host.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_IMPORT_GRAPHIMPORTER_H
#define OPFUSE_LIB_IMPORT_GRAPHIMPORTER_H

#include "opfuse/Import/OnnxImporter.h"

#include "onnx/onnx_pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace opfuse::onnx_import {

/// A tensor whose contents the importer holds on the host: small
/// initializers and Constant nodes, graph shapes, and what folds from them
/// (the shape computations exporters emit). Integers are exact up to 2^53.
struct HostTensor {
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> data;
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// Tensors of at most this many elements are kept on the host as well.
constexpr int64_t kHostElements = 4096;

/// One node being converted.
struct Node {
  const onnx::NodeProto &proto;
  mlir::Location loc;
  int64_t opset;
  /// "MatMul node 'mm_0'": the prefix of its diagnostics.
  std::string describe() const;
  int inputs() const { return proto.input_size(); }
  /// Whether input #i is given (ONNX marks an omitted optional input "").
  bool has(int i) const {
    return i < proto.input_size() && !proto.input(i).empty();
  }
};

class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &context, const onnx::ModelProto &model,
                const OnnxImportOptions &options, llvm::StringRef path);

  mlir::OwningOpRef<mlir::ModuleOp> run(OnnxImportFailure &failure);

  //===--- For converters ---------------------------------------------===//

  mlir::OpBuilder builder;
  mlir::MLIRContext *context;

  /// Input #i as an SSA value (a host tensor becomes a fuse.constant at
  /// its first use); failure after a diagnostic.
  mlir::FailureOr<mlir::Value> operand(const Node &node, int i);
  /// Input #i's type.
  mlir::RankedTensorType typeOf(const Node &node, int i);
  /// Input #i's contents when the host knows them, else null.
  const HostTensor *known(const Node &node, int i);
  /// Input #i as integers (a constant the node needs at import time: a
  /// shape, axes, slice bounds); failure after a diagnostic naming `what`.
  mlir::FailureOr<llvm::SmallVector<int64_t>> knownInts(const Node &node, int i,
                                                        llvm::StringRef what);

  /// Output #i of `node` is `value` (and `host`, when it folded).
  void define(const Node &node, int i, mlir::Value value);
  void defineHost(const Node &node, int i, HostTensor host);

  std::optional<int64_t> intAttr(const Node &node, llvm::StringRef name);
  int64_t intAttr(const Node &node, llvm::StringRef name, int64_t otherwise);
  float floatAttr(const Node &node, llvm::StringRef name, float otherwise);
  std::string stringAttr(const Node &node, llvm::StringRef name,
                         llvm::StringRef otherwise);
  std::optional<llvm::SmallVector<int64_t>> intsAttr(const Node &node,
                                                     llvm::StringRef name);
  const onnx::AttributeProto *attr(const Node &node, llvm::StringRef name);

  /// The fuse element type of an ONNX TensorProto data type; null (after
  /// an unsupported-type diagnostic at `loc`) for types fuse has none of.
  mlir::Type elementType(int32_t onnxType, mlir::Location loc);
  /// An ONNX tensor's contents: raw or typed fields, or its external file.
  /// With `weight`, a tensor of more than kHostElements stored as bytes
  /// (raw or external data) is read into `*weight` instead, and the result
  /// holds its type and shape only.
  mlir::FailureOr<HostTensor>
  readTensor(const onnx::TensorProto &tensor, mlir::Location loc,
             std::optional<mlir::AsmResourceBlob> *weight = nullptr);
  /// A fuse.constant holding `host`.
  mlir::Value materialize(const HostTensor &host, mlir::Location loc);
  /// A rank-0 fuse.constant of `element` (broadcasts against anything).
  mlir::Value scalar(mlir::Type element, double value, mlir::Location loc);

  /// An error at `node`, prefixed with what it is.
  mlir::InFlightDiagnostic error(const Node &node);
  /// The node uses what the importer lacks (an op, an attribute value, a
  /// type): reported, and the import ends with exit 4.
  mlir::InFlightDiagnostic unsupported(const Node &node);

private:
  struct Entry {
    mlir::Value value;
    std::optional<HostTensor> host;
    mlir::RankedTensorType type;
    /// Where a host tensor came from (an initializer); null: the node
    /// that first uses it.
    std::optional<mlir::Location> origin;
  };
  mlir::LogicalResult importInputs();
  mlir::LogicalResult importInitializers();
  mlir::LogicalResult importNode(const onnx::NodeProto &proto);
  mlir::LogicalResult importOutputs();
  Entry *lookup(const Node &node, int i);

  const onnx::ModelProto &model;
  const OnnxImportOptions &options;
  std::string path;
  int64_t opset = 0;
  llvm::StringMap<Entry> names;
  mlir::func::FuncOp func;
  /// An external-data file could not be read.
  bool unreadable = false;

  /// Where a tensor's external data lies: the file beside the model, the
  /// offset and the length (the shape's bytes when the model gives none).
  struct ExternalSlice {
    llvm::SmallString<256> file;
    int64_t offset = 0, length = 0;
  };
  mlir::FailureOr<ExternalSlice> externalSlice(const onnx::TensorProto &tensor,
                                               mlir::Location loc,
                                               int64_t bytes);
  /// A weight's external data read straight into a resource blob.
  mlir::FailureOr<mlir::AsmResourceBlob>
  readExternalBlob(const onnx::TensorProto &tensor, mlir::Location loc,
                   int64_t bytes);
  /// Outputs of nodes that failed, and whether the last node was skipped
  /// because it reads one.
  llvm::StringSet<> failedOutputs;
  bool skipped = false;
  /// Unsupported constructs reported so far.
  int unsupportedCount = 0;
  llvm::StringMap<bool> reportedTypes;
};

/// One converter per ONNX op type; fails after a diagnostic.
using Converter = mlir::LogicalResult (*)(GraphImporter &, const Node &);
const llvm::StringMap<Converter> &converters();

/// Shape helpers shared by converters.
/// NumPy broadcasting of two shapes, nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
/// `axis` in [-rank, rank) as a non-negative axis, nullopt outside.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace opfuse::onnx_import

#endif // OPFUSE_LIB_IMPORT_GRAPHIMPORTER_H
