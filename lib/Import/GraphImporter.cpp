//===- GraphImporter.cpp - One ONNX graph as one fuse function ------------===//
//
// Inputs (less those that name initializers, as older exporters list them)
// become the function's arguments in order; initializers and Constant
// nodes are known tensors, materialised as fuse.constant where an op uses
// them (large ones as dense_resource blobs, one copy of the weights); nodes
// convert in the graph's order, which ONNX requires to be topological.
// Every node is tried even after one is unsupported, so one run lists
// every unsupported op of the model.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Runtime/HalfFloat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;

namespace opfuse::onnx_import {

namespace {
// onnx::TensorProto_DataType values.
enum OnnxType : int32_t {
  kFloat = 1,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kBFloat16 = 16,
};

const char *onnxTypeName(int32_t type) {
  switch (type) {
  case 1:
    return "float";
  case 2:
    return "uint8";
  case 3:
    return "int8";
  case 4:
    return "uint16";
  case 5:
    return "int16";
  case 6:
    return "int32";
  case 7:
    return "int64";
  case 8:
    return "string";
  case 9:
    return "bool";
  case 10:
    return "float16";
  case 11:
    return "double";
  case 12:
    return "uint32";
  case 13:
    return "uint64";
  case 14:
    return "complex64";
  case 15:
    return "complex128";
  case 16:
    return "bfloat16";
  default:
    return "an unknown type";
  }
}

int64_t byteWidth(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

/// The value of element `i` of little-endian `bytes` holding `type`.
double decode(Type type, const char *bytes, int64_t i) {
  const char *p = bytes + i * byteWidth(type);
  if (type.isF32()) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type.isF16() || type.isBF16()) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return type.isBF16() ? decodeBF16(v) : decodeF16(v);
  }
  if (type.isInteger(32)) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type.isInteger(64)) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  return *p ? 1 : 0;
}
} // namespace

/// How many leading inputs an op must have (ONNX's required inputs).
int minimumInputs(llvm::StringRef op) {
  static const llvm::StringMap<int> table = {
      {"Add", 2},
      {"Sub", 2},
      {"Mul", 2},
      {"Div", 2},
      {"Pow", 2},
      {"Equal", 2},
      {"Less", 2},
      {"Greater", 2},
      {"LessOrEqual", 2},
      {"GreaterOrEqual", 2},
      {"And", 2},
      {"Or", 2},
      {"Xor", 2},
      {"Where", 3},
      {"MatMul", 2},
      {"Gemm", 2},
      {"Conv", 2},
      {"BatchNormalization", 5},
      {"Reshape", 2},
      {"Expand", 2},
      {"Slice", 3},
      {"Gather", 2},
      {"GatherElements", 2},
      {"Range", 3},
      {"Unsqueeze", 2},
      {"LayerNormalization", 2},
      {"SimplifiedLayerNormalization", 2},
      {"Constant", 0},
  };
  auto it = table.find(op);
  return it == table.end() ? 1 : it->second;
}

std::string Node::describe() const {
  return llvm::formatv("{0} node '{1}'", proto.op_type(), proto.name()).str();
}

GraphImporter::GraphImporter(MLIRContext &context,
                             const onnx::ModelProto &model,
                             const OnnxImportOptions &options,
                             llvm::StringRef path)
    : builder(&context), context(&context), model(model), options(options),
      path(path.str()) {
  // Nothing was parsed: the dialects the import builds are not loaded yet.
  context.getOrLoadDialect<func::FuncDialect>();
  context.getOrLoadDialect<fuse::FuseDialect>();
}

InFlightDiagnostic GraphImporter::error(const Node &node) {
  InFlightDiagnostic diag = emitError(node.loc);
  diag << node.describe() << ": ";
  return diag;
}

InFlightDiagnostic GraphImporter::unsupported(const Node &node) {
  ++unsupportedCount;
  return error(node);
}

Type GraphImporter::elementType(int32_t onnxType, Location loc) {
  switch (onnxType) {
  case kFloat:
    return builder.getF32Type();
  case kFloat16:
    return builder.getF16Type();
  case kBFloat16:
    return builder.getBF16Type();
  case kInt32:
    return builder.getI32Type();
  case kInt64:
    return builder.getI64Type();
  case kBool:
    return builder.getI1Type();
  default:
    ++unsupportedCount;
    emitError(loc) << "ONNX element type " << onnxTypeName(onnxType)
                   << " has no fuse type (fuse has f32, f16, bf16, i32, i64 "
                      "and bool)";
    return nullptr;
  }
}

FailureOr<GraphImporter::ExternalSlice>
GraphImporter::externalSlice(const onnx::TensorProto &t, Location loc,
                             int64_t bytes) {
  ExternalSlice slice;
  slice.length = -1;
  std::string location;
  for (const onnx::StringStringEntryProto &entry : t.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      llvm::to_integer(entry.value(), slice.offset);
    else if (entry.key() == "length")
      llvm::to_integer(entry.value(), slice.length);
  }
  if (slice.length < 0)
    slice.length = bytes;
  slice.file = llvm::sys::path::parent_path(path);
  llvm::sys::path::append(slice.file, location);
  return slice;
}

FailureOr<AsmResourceBlob>
GraphImporter::readExternalBlob(const onnx::TensorProto &t, Location loc,
                                int64_t bytes) {
  FailureOr<ExternalSlice> slice = externalSlice(t, loc, bytes);
  if (failed(slice))
    return failure();
  if (slice->length != bytes) {
    emitError(loc) << "tensor '" << t.name() << "' holds " << slice->length
                   << " bytes where its shape needs " << bytes;
    return failure();
  }
  auto cannotRead = [&](std::error_code ec) {
    unreadable = true;
    emitError(loc) << "cannot read the external data of tensor '" << t.name()
                   << "' from " << slice->file << ": " << ec.message();
    return failure();
  };
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(slice->file);
  if (!file)
    return cannotRead(llvm::errorToErrorCode(file.takeError()));
  // Straight into the blob: the one copy of the weight the importer keeps.
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(bytes, alignof(int64_t), true);
  MutableArrayRef<char> data = blob.getMutableData();
  int64_t done = 0;
  while (done < bytes) {
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFileSlice(
        *file, data.slice(done), slice->offset + done);
    if (!read || *read == 0) {
      llvm::sys::fs::closeFile(*file);
      return cannotRead(read ? std::make_error_code(std::errc::io_error)
                             : llvm::errorToErrorCode(read.takeError()));
    }
    done += *read;
  }
  llvm::sys::fs::closeFile(*file);
  return blob;
}

FailureOr<HostTensor>
GraphImporter::readTensor(const onnx::TensorProto &t, Location loc,
                          std::optional<AsmResourceBlob> *weight) {
  HostTensor host;
  host.elementType = elementType(t.data_type(), loc);
  if (!host.elementType)
    return failure();
  // Bounded before anything is allocated: a hostile file may claim any
  // shape.
  constexpr int64_t kMaxElements = int64_t(1) << 40;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      emitError(loc) << "tensor '" << t.name() << "' has a negative dimension";
      return failure();
    }
    host.shape.push_back(d);
    if (d != 0 && count > kMaxElements / d) {
      emitError(loc) << "tensor '" << t.name()
                     << "' has more than 2^40 elements";
      return failure();
    }
    count *= d;
  }
  const int64_t width = byteWidth(host.elementType);
  // A weight stored as bytes goes into its blob as it is, read once: ONNX's
  // raw and external data are little-endian in the width of the fuse type.
  const bool asBlob =
      weight && count > kHostElements &&
      (t.has_raw_data() || t.data_location() == onnx::TensorProto::EXTERNAL);
  std::string external;
  const std::string *raw = t.has_raw_data() ? &t.raw_data() : nullptr;
  if (asBlob && !raw) {
    FailureOr<AsmResourceBlob> blob = readExternalBlob(t, loc, count * width);
    if (failed(blob))
      return failure();
    weight->emplace(std::move(*blob));
    return host;
  }
  if (asBlob) {
    if (static_cast<int64_t>(raw->size()) != count * width) {
      emitError(loc) << "tensor '" << t.name() << "' holds " << raw->size()
                     << " bytes where its shape needs " << count * width;
      return failure();
    }
    weight->emplace(HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(raw->data(), raw->size()), alignof(int64_t)));
    return host;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    FailureOr<ExternalSlice> slice = externalSlice(t, loc, count * width);
    if (failed(slice))
      return failure();
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFileSlice(slice->file, slice->length,
                                         slice->offset);
    if (!buffer) {
      unreadable = true;
      emitError(loc) << "cannot read the external data of tensor '" << t.name()
                     << "' from " << slice->file << ": "
                     << buffer.getError().message();
      return failure();
    }
    external = (*buffer)->getBuffer().str();
    raw = &external;
  }
  if (raw) {
    if (static_cast<int64_t>(raw->size()) != count * width) {
      emitError(loc) << "tensor '" << t.name() << "' holds " << raw->size()
                     << " bytes where its shape needs " << count * width;
      return failure();
    }
    host.data.resize(count);
    for (int64_t i = 0; i < count; ++i)
      host.data[i] = decode(host.elementType, raw->data(), i);
    return host;
  }
  // Typed fields: f16 and bf16 travel as bit patterns in int32_data.
  auto fill = [&](auto &field, auto convert) -> LogicalResult {
    if (field.size() != count) {
      emitError(loc) << "tensor '" << t.name() << "' holds " << field.size()
                     << " values where its shape needs " << count;
      return failure();
    }
    host.data.resize(count);
    for (int64_t i = 0; i < count; ++i)
      host.data[i] = convert(field.Get(i));
    return success();
  };
  LogicalResult filled = failure();
  Type type = host.elementType;
  if (type.isF32())
    filled = fill(t.float_data(), [](float v) { return double(v); });
  else if (type.isF16())
    filled = fill(t.int32_data(),
                  [](int32_t v) { return double(decodeF16(uint16_t(v))); });
  else if (type.isBF16())
    filled = fill(t.int32_data(),
                  [](int32_t v) { return double(decodeBF16(uint16_t(v))); });
  else if (type.isInteger(64))
    filled = fill(t.int64_data(), [](int64_t v) { return double(v); });
  else
    filled = fill(t.int32_data(), [](int32_t v) { return double(v); });
  if (failed(filled))
    return failure();
  return host;
}

Value GraphImporter::materialize(const HostTensor &host, Location loc) {
  auto type = RankedTensorType::get(host.shape, host.elementType);
  Attribute value;
  if (host.size() <= kHostElements) {
    if (auto floatType = dyn_cast<FloatType>(host.elementType)) {
      SmallVector<APFloat> values;
      for (double v : host.data) {
        APFloat f(v);
        bool lost;
        f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lost);
        values.push_back(f);
      }
      value = DenseElementsAttr::get(type, values);
    } else {
      const unsigned width = host.elementType.getIntOrFloatBitWidth();
      SmallVector<APInt> values;
      for (double v : host.data)
        values.push_back(APInt(width, static_cast<int64_t>(v), true));
      value = DenseElementsAttr::get(type, values);
    }
  } else {
    // Weights: one blob in the module, its bytes in the element type.
    const int64_t width = byteWidth(host.elementType);
    std::vector<char> bytes(host.size() * width);
    for (int64_t i = 0; i < host.size(); ++i) {
      double v = host.data[i];
      char *p = bytes.data() + i * width;
      Type t = host.elementType;
      if (t.isF32()) {
        float f = v;
        std::memcpy(p, &f, 4);
      } else if (t.isF16() || t.isBF16()) {
        uint16_t h = t.isBF16() ? encodeBF16(v) : encodeF16(v);
        std::memcpy(p, &h, 2);
      } else if (t.isInteger(32)) {
        int32_t x = static_cast<int32_t>(v);
        std::memcpy(p, &x, 4);
      } else if (t.isInteger(64)) {
        int64_t x = static_cast<int64_t>(v);
        std::memcpy(p, &x, 8);
      } else {
        *p = v != 0;
      }
    }
    value = DenseResourceElementsAttr::get(
        type, "onnx_weight",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(bytes),
                                                      alignof(int64_t)));
  }
  return fuse::ConstantOp::create(builder, loc, type,
                                  cast<ElementsAttr>(value));
}

Value GraphImporter::scalar(Type element, double value, Location loc) {
  HostTensor host;
  host.elementType = element;
  host.data = {value};
  return materialize(host, loc);
}

GraphImporter::Entry *GraphImporter::lookup(const Node &node, int i) {
  if (!node.has(i))
    return nullptr;
  auto it = names.find(node.proto.input(i));
  return it == names.end() ? nullptr : &it->second;
}

RankedTensorType GraphImporter::typeOf(const Node &node, int i) {
  Entry *entry = lookup(node, i);
  return entry ? entry->type : nullptr;
}

const HostTensor *GraphImporter::known(const Node &node, int i) {
  Entry *entry = lookup(node, i);
  return entry && entry->host ? &*entry->host : nullptr;
}

FailureOr<Value> GraphImporter::operand(const Node &node, int i) {
  Entry *entry = lookup(node, i);
  if (!entry) {
    error(node) << "input #" << i << " ("
                << (i < node.inputs() ? node.proto.input(i) : "")
                << ") is missing or not defined before the node";
    return failure();
  }
  if (!entry->value)
    entry->value = materialize(*entry->host, entry->origin.value_or(node.loc));
  return entry->value;
}

FailureOr<SmallVector<int64_t>>
GraphImporter::knownInts(const Node &node, int i, llvm::StringRef what) {
  const HostTensor *host = known(node, i);
  if (!host) {
    unsupported(node) << "its " << what
                      << " must be known when the model is imported (a "
                         "constant, or computed from shapes)";
    return failure();
  }
  SmallVector<int64_t> values;
  for (double v : host->data)
    values.push_back(static_cast<int64_t>(v));
  return values;
}

void GraphImporter::define(const Node &node, int i, Value value) {
  if (i >= node.proto.output_size() || node.proto.output(i).empty())
    return;
  Entry &entry = names[node.proto.output(i)];
  entry.value = value;
  entry.host.reset();
  entry.type = cast<RankedTensorType>(value.getType());
}

void GraphImporter::defineHost(const Node &node, int i, HostTensor host) {
  if (i >= node.proto.output_size() || node.proto.output(i).empty())
    return;
  Entry &entry = names[node.proto.output(i)];
  entry.type = RankedTensorType::get(host.shape, host.elementType);
  entry.value = nullptr;
  entry.host = std::move(host);
  entry.origin = node.loc;
}

const onnx::AttributeProto *GraphImporter::attr(const Node &node,
                                                llvm::StringRef name) {
  for (const onnx::AttributeProto &a : node.proto.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

std::optional<int64_t> GraphImporter::intAttr(const Node &node,
                                              llvm::StringRef name) {
  if (const onnx::AttributeProto *a = attr(node, name))
    return a->i();
  return std::nullopt;
}

int64_t GraphImporter::intAttr(const Node &node, llvm::StringRef name,
                               int64_t otherwise) {
  return intAttr(node, name).value_or(otherwise);
}

float GraphImporter::floatAttr(const Node &node, llvm::StringRef name,
                               float otherwise) {
  const onnx::AttributeProto *a = attr(node, name);
  return a ? a->f() : otherwise;
}

std::string GraphImporter::stringAttr(const Node &node, llvm::StringRef name,
                                      llvm::StringRef otherwise) {
  const onnx::AttributeProto *a = attr(node, name);
  return a ? a->s() : otherwise.str();
}

std::optional<SmallVector<int64_t>>
GraphImporter::intsAttr(const Node &node, llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(node, name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

LogicalResult GraphImporter::importInputs() {
  llvm::StringMap<bool> initializers;
  for (const onnx::TensorProto &t : model.graph().initializer())
    initializers[t.name()] = true;
  SmallVector<Type> types;
  SmallVector<std::string> inputNames;
  bool ok = true;
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    if (initializers.count(input.name()))
      continue;
    Location loc = NameLoc::get(builder.getStringAttr("input " + input.name()),
                                FileLineColLoc::get(context, path, 0, 0));
    if (!input.type().has_tensor_type()) {
      emitError(loc) << "graph input '" << input.name() << "' is not a tensor";
      ok = false;
      continue;
    }
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Type element = elementType(tensor.elem_type(), loc);
    if (!element) {
      ok = false;
      continue;
    }
    SmallVector<int64_t> shape;
    auto fixed = options.inputShapes.find(input.name());
    if (fixed != options.inputShapes.end()) {
      shape = fixed->second;
      if (tensor.has_shape() &&
          tensor.shape().dim_size() != static_cast<int>(shape.size())) {
        emitError(loc) << "--input-shape gives '" << input.name() << "' "
                       << shape.size() << " dimensions; the model gives it "
                       << tensor.shape().dim_size();
        ok = false;
        continue;
      }
    } else {
      if (!tensor.has_shape()) {
        emitError(loc) << "graph input '" << input.name()
                       << "' has no shape: give it with --input-shape "
                       << input.name() << "=DxDx...";
        ok = false;
        continue;
      }
      for (auto [index, dim] : llvm::enumerate(tensor.shape().dim())) {
        if (dim.has_dim_value() && dim.dim_value() > 0) {
          shape.push_back(dim.dim_value());
          continue;
        }
        emitError(loc) << "dimension " << index << " of graph input '"
                       << input.name() << "' is dynamic"
                       << (dim.has_dim_param() ? " ('" + dim.dim_param() + "')"
                                               : std::string())
                       << ": fix it with --input-shape " << input.name()
                       << "=DxDx...";
        ok = false;
        break;
      }
    }
    // Bounded here, before any converter computes with the shape.
    int64_t elements = 1;
    bool fits = true;
    for (int64_t d : shape) {
      fits &= d >= 0 && (d == 0 || elements <= (int64_t(1) << 40) / d);
      elements *= fits ? d : 1;
    }
    if (!fits) {
      emitError(loc) << "graph input '" << input.name()
                     << "' has more than 2^40 elements";
      ok = false;
      continue;
    }
    types.push_back(RankedTensorType::get(shape, element));
    inputNames.push_back(input.name());
  }
  if (!ok)
    return failure();
  for (const auto &entry : options.inputShapes)
    if (!llvm::is_contained(inputNames, entry.first().str())) {
      emitError(FileLineColLoc::get(context, path, 0, 0))
          << "--input-shape names '" << entry.first()
          << "', which is not a graph input of the model";
      return failure();
    }
  // Results come from the graph outputs once the nodes are converted.
  func = func::FuncOp::create(FileLineColLoc::get(context, path, 0, 0),
                              options.functionName,
                              builder.getFunctionType(types, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  for (auto [index, name] : llvm::enumerate(inputNames))
    func.setArgAttr(index, "fuse.name", builder.getStringAttr(name));
  for (auto [name, argument] : llvm::zip(inputNames, body->getArguments())) {
    Entry &entry = names[name];
    entry.value = argument;
    entry.type = cast<RankedTensorType>(argument.getType());
  }
  return success();
}

LogicalResult GraphImporter::importInitializers() {
  bool ok = true;
  for (const onnx::TensorProto &t : model.graph().initializer()) {
    Location loc =
        NameLoc::get(builder.getStringAttr("initializer " + t.name()),
                     FileLineColLoc::get(context, path, 0, 0));
    std::optional<AsmResourceBlob> weight;
    FailureOr<HostTensor> host = readTensor(t, loc, &weight);
    if (failed(host)) {
      ok = false;
      continue;
    }
    Entry &entry = names[t.name()];
    entry.type = RankedTensorType::get(host->shape, host->elementType);
    if (weight)
      entry.value = fuse::ConstantOp::create(
          builder, loc, entry.type,
          DenseResourceElementsAttr::get(entry.type, "onnx_weight",
                                         std::move(*weight)));
    else if (host->size() > kHostElements)
      entry.value = materialize(*host, loc);
    else
      entry.host = std::move(*host);
    entry.origin = loc;
  }
  return success(ok);
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &proto) {
  std::string name = proto.name().empty()
                         ? proto.op_type() + "(" +
                               (proto.output_size() ? proto.output(0) : "") +
                               ")"
                         : proto.name();
  Node node{proto,
            NameLoc::get(builder.getStringAttr(name),
                         FileLineColLoc::get(context, path, 0, 0)),
            opset};
  if (!proto.domain().empty() && proto.domain() != "ai.onnx") {
    unsupported(node) << "domain '" << proto.domain()
                      << "' is not supported (only the default ONNX domain)";
    return failure();
  }
  auto converter = converters().find(proto.op_type());
  if (converter == converters().end()) {
    unsupported(node) << "op " << proto.op_type() << " (opset " << opset
                      << ") has no importer";
    return failure();
  }
  // Converters read their mandatory inputs without asking.
  const int required = minimumInputs(proto.op_type());
  int given = 0;
  for (int i = 0; i < std::min(required, proto.input_size()); ++i)
    given += !proto.input(i).empty();
  if (given < required) {
    error(node) << "needs " << required << " input(s), has " << given;
    return failure();
  }
  // A node whose input a failed node should have defined is skipped: its
  // own error would only repeat the first. An input nothing defines is an
  // invalid model.
  skipped = false;
  for (int i = 0; i < proto.input_size(); ++i) {
    const std::string &input = proto.input(i);
    if (input.empty() || names.count(input))
      continue;
    if (failedOutputs.contains(input)) {
      skipped = true;
      return failure();
    }
    error(node) << "input '" << input
                << "' is not defined before the node (not a graph input, an "
                   "initializer or an earlier node's output)";
    return failure();
  }
  return converter->second(*this, node);
}

LogicalResult GraphImporter::importOutputs() {
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : model.graph().output()) {
    auto it = names.find(output.name());
    if (it == names.end()) {
      emitError(FileLineColLoc::get(context, path, 0, 0))
          << "graph output '" << output.name() << "' is never computed";
      return failure();
    }
    Entry &entry = it->second;
    if (!entry.value)
      entry.value = materialize(*entry.host, func.getLoc());
    results.push_back(entry.value);
  }
  func::ReturnOp::create(builder, func.getLoc(), results);
  func.setFunctionType(builder.getFunctionType(func.getArgumentTypes(),
                                               ValueRange(results).getTypes()));
  for (auto [index, output] : llvm::enumerate(model.graph().output()))
    func.setResultAttr(index, "fuse.name",
                       builder.getStringAttr(output.name()));
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run(OnnxImportFailure &failure) {
  failure = OnnxImportFailure::Invalid;
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  if (opset == 0) {
    emitError(fileLoc) << "the model imports no opset of the default ONNX "
                          "domain";
    return nullptr;
  }
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset) {
    emitError(fileLoc) << "the model uses ONNX opset " << opset
                       << "; opfuse imports opsets " << kMinOnnxOpset << " to "
                       << kMaxOnnxOpset;
    failure = OnnxImportFailure::Unsupported;
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(importInputs())) {
    failure = unsupportedCount ? OnnxImportFailure::Unsupported
                               : OnnxImportFailure::Invalid;
    return nullptr;
  }
  module->push_back(func);
  if (failed(importInitializers())) {
    failure = unreadable         ? OnnxImportFailure::Unreadable
              : unsupportedCount ? OnnxImportFailure::Unsupported
                                 : OnnxImportFailure::Invalid;
    return nullptr;
  }
  bool ok = true;
  bool invalid = false;
  for (const onnx::NodeProto &proto : model.graph().node()) {
    const int before = unsupportedCount;
    if (failed(importNode(proto))) {
      ok = false;
      for (const std::string &output : proto.output())
        failedOutputs.insert(output);
      // A node that failed without being unsupported (or skipped after
      // one that failed) makes the model invalid; otherwise carry on to
      // list every unsupported op.
      invalid |= unsupportedCount == before && !skipped;
    }
  }
  if (!ok) {
    failure = invalid || !unsupportedCount ? OnnxImportFailure::Invalid
                                           : OnnxImportFailure::Unsupported;
    return nullptr;
  }
  if (failed(importOutputs()))
    return nullptr;
  // Constants nothing reads: initializers the graph does not use, and
  // filters the importer transposed into new constants.
  SmallVector<Operation *> unused;
  module->walk([&](fuse::ConstantOp op) {
    if (op->use_empty())
      unused.push_back(op);
  });
  for (Operation *op : unused)
    op->erase();
  if (failed(verify(*module)))
    return nullptr;
  failure = OnnxImportFailure::None;
  return module;
}

} // namespace opfuse::onnx_import
