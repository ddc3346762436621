//===- ShapeConverters.cpp - ONNX data movement and shapes as fuse ops ----===//
//
// Reshape-like ops (Reshape, Flatten, Squeeze, Unsqueeze), Transpose,
// Concat, Slice, Split, Gather, Expand, and the constant producers
// (Constant, ConstantOfShape, Shape, Range). Whatever reads only known
// tensors folds on the host, so the shape computations exporters emit
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) leave no op behind.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Input 0 with `shape` (same elements, row-major order).
LogicalResult reshapeTo(GraphImporter &g, const Node &node,
                        ArrayRef<int64_t> shape) {
  RankedTensorType in = g.typeOf(node, 0);
  if (product(shape) != in.getNumElements()) {
    g.error(node) << "cannot reshape " << in << " (" << in.getNumElements()
                  << " elements) to " << product(shape) << " elements";
    return failure();
  }
  if (const HostTensor *host = g.known(node, 0)) {
    HostTensor out = *host;
    out.shape.assign(shape.begin(), shape.end());
    g.defineHost(node, 0, std::move(out));
    return success();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  auto type = RankedTensorType::get(shape, in.getElementType());
  g.define(
      node, 0,
      type == in
          ? *x
          : fuse::ReshapeOp::create(g.builder, node.loc, type, *x).getResult());
  return success();
}

LogicalResult reshape(GraphImporter &g, const Node &node) {
  FailureOr<SmallVector<int64_t>> target = g.knownInts(node, 1, "shape");
  if (failed(target))
    return failure();
  RankedTensorType in = g.typeOf(node, 0);
  const bool allowZero = g.intAttr(node, "allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if (i >= static_cast<size_t>(in.getRank())) {
        g.error(node) << "shape copies dimension " << i << " of " << in
                      << ", which has none";
        return failure();
      }
      d = in.getDimSize(i);
    }
    if (d == -1) {
      if (inferred >= 0) {
        g.error(node) << "shape has more than one -1";
        return failure();
      }
      inferred = i;
      shape.push_back(1);
      continue;
    }
    if (d < 0) {
      g.error(node) << "shape has the dimension " << d;
      return failure();
    }
    shape.push_back(d);
    known *= d;
  }
  if (inferred >= 0) {
    if (known == 0 || in.getNumElements() % known != 0) {
      g.error(node) << "cannot infer the -1 of the shape for " << in;
      return failure();
    }
    shape[inferred] = in.getNumElements() / known;
  }
  return reshapeTo(g, node, shape);
}

LogicalResult flatten(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  std::optional<int64_t> axis =
      normalizeAxis(g.intAttr(node, "axis", 1), in.getRank() + 1);
  if (!axis) {
    g.error(node) << "axis is outside the rank of " << in;
    return failure();
  }
  return reshapeTo(g, node,
                   {product(in.getShape().take_front(*axis)),
                    product(in.getShape().drop_front(*axis))});
}

/// Squeeze and Unsqueeze: their axes are input #1 (opset 13 and later).
LogicalResult squeeze(GraphImporter &g, const Node &node, bool insert) {
  RankedTensorType in = g.typeOf(node, 0);
  SmallVector<int64_t> axes;
  if (node.has(1)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else if (insert) {
    g.error(node) << "has no axes";
    return failure();
  }
  const int64_t rank = in.getRank() + (insert ? axes.size() : 0);
  SmallVector<bool> marked(rank, false);
  for (int64_t a : axes) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis || marked[*axis]) {
      g.error(node) << "axis " << a << " is invalid for " << in;
      return failure();
    }
    marked[*axis] = true;
  }
  SmallVector<int64_t> shape;
  if (insert) {
    int64_t next = 0;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(marked[d] ? 1 : in.getDimSize(next++));
  } else {
    for (int64_t d = 0; d < in.getRank(); ++d) {
      const bool drop = axes.empty() ? in.getDimSize(d) == 1 : marked[d];
      if (drop && in.getDimSize(d) != 1) {
        g.error(node) << "cannot squeeze dimension " << d << " of " << in;
        return failure();
      }
      if (!drop)
        shape.push_back(in.getDimSize(d));
    }
  }
  return reshapeTo(g, node, shape);
}

LogicalResult transpose(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> given = g.intsAttr(node, "perm"))
    perm = *given;
  else
    for (int64_t d = in.getRank() - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<bool> seen(in.getRank(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p] ||
        perm.size() != static_cast<size_t>(in.getRank())) {
      g.error(node) << "perm is not a permutation of " << in.getRank()
                    << " axes";
      return failure();
    }
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  g.define(node, 0,
           fuse::TransposeOp::create(
               g.builder, node.loc,
               RankedTensorType::get(shape, in.getElementType()), *x,
               g.builder.getDenseI64ArrayAttr(perm)));
  return success();
}

LogicalResult concat(GraphImporter &g, const Node &node) {
  RankedTensorType first = g.typeOf(node, 0);
  std::optional<int64_t> axis =
      normalizeAxis(g.intAttr(node, "axis", 0), first.getRank());
  if (!axis) {
    g.error(node) << "axis is outside the rank of " << first;
    return failure();
  }
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  bool allKnown = true;
  for (int i = 0; i < node.inputs(); ++i) {
    RankedTensorType t = g.typeOf(node, i);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType()) {
      g.error(node) << "input " << t << " does not match " << first;
      return failure();
    }
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != first.getDimSize(d)) {
        g.error(node) << "input " << t << " does not match " << first
                      << " outside axis " << *axis;
        return failure();
      }
    shape[*axis] += t.getDimSize(*axis);
    allKnown &= g.known(node, i) != nullptr;
  }
  if (allKnown && product(shape) <= kHostElements) {
    HostTensor out;
    out.elementType = first.getElementType();
    out.shape = shape;
    const int64_t outer = product(ArrayRef<int64_t>(shape).take_front(*axis));
    const int64_t inner =
        product(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
    for (int64_t o = 0; o < outer; ++o)
      for (int i = 0; i < node.inputs(); ++i) {
        const HostTensor *h = g.known(node, i);
        const int64_t block = h->shape[*axis] * inner;
        out.data.insert(out.data.end(), h->data.begin() + o * block,
                        h->data.begin() + (o + 1) * block);
      }
    g.defineHost(node, 0, std::move(out));
    return success();
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < node.inputs(); ++i) {
    FailureOr<Value> v = g.operand(node, i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  if (inputs.size() == 1) {
    g.define(node, 0, inputs.front());
    return success();
  }
  g.define(node, 0,
           fuse::ConcatOp::create(
               g.builder, node.loc,
               RankedTensorType::get(shape, first.getElementType()), inputs,
               *axis));
  return success();
}

/// A window of input 0: `offsets`, `sizes`, `strides` over every axis.
LogicalResult window(GraphImporter &g, const Node &node, int output,
                     ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
  RankedTensorType in = g.typeOf(node, 0);
  if (const HostTensor *host = g.known(node, 0)) {
    HostTensor out;
    out.elementType = host->elementType;
    out.shape.assign(sizes.begin(), sizes.end());
    SmallVector<int64_t> inStrides = stridesOf(host->shape);
    const int64_t count = product(sizes);
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, index = 0;
      for (int64_t d = in.getRank() - 1; d >= 0; --d) {
        index += (offsets[d] + (rest % sizes[d]) * strides[d]) * inStrides[d];
        rest /= sizes[d];
      }
      out.data.push_back(host->data[index]);
    }
    g.defineHost(node, output, std::move(out));
    return success();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  auto type = RankedTensorType::get(sizes, in.getElementType());
  if (type == in) {
    g.define(node, output, *x);
    return success();
  }
  g.define(node, output,
           fuse::SliceOp::create(g.builder, node.loc, type, *x,
                                 g.builder.getDenseI64ArrayAttr(offsets),
                                 g.builder.getDenseI64ArrayAttr(sizes),
                                 g.builder.getDenseI64ArrayAttr(strides)));
  return success();
}

LogicalResult slice(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  FailureOr<SmallVector<int64_t>> starts = g.knownInts(node, 1, "starts");
  FailureOr<SmallVector<int64_t>> ends = g.knownInts(node, 2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  SmallVector<int64_t> axes, steps(starts->size(), 1);
  if (node.has(3)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  }
  if (node.has(4)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size()) {
    g.error(node) << "starts, ends, axes and steps differ in length";
    return failure();
  }
  SmallVector<int64_t> offsets(in.getRank(), 0), sizes(in.getShape()),
      strides(in.getRank(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = normalizeAxis(axes[i], in.getRank());
    if (!axis) {
      g.error(node) << "axis " << axes[i] << " is outside the rank of " << in;
      return failure();
    }
    if (steps[i] <= 0) {
      g.unsupported(node) << "step " << steps[i]
                          << " (only positive steps are supported)";
      return failure();
    }
    const int64_t dim = in.getDimSize(*axis);
    auto clampIndex = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    const int64_t start = clampIndex((*starts)[i]);
    const int64_t end = clampIndex((*ends)[i]);
    offsets[*axis] = start;
    strides[*axis] = steps[i];
    sizes[*axis] = end > start ? (end - start + steps[i] - 1) / steps[i] : 0;
  }
  return window(g, node, 0, offsets, sizes, strides);
}

LogicalResult split(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  std::optional<int64_t> axis =
      normalizeAxis(g.intAttr(node, "axis", 0), in.getRank());
  if (!axis) {
    g.error(node) << "axis is outside the rank of " << in;
    return failure();
  }
  const int64_t dim = in.getDimSize(*axis);
  const int64_t outputs = node.proto.output_size();
  SmallVector<int64_t> parts;
  if (node.has(1)) {
    FailureOr<SmallVector<int64_t>> given = g.knownInts(node, 1, "split");
    if (failed(given))
      return failure();
    parts = *given;
  } else {
    // Equal parts, the last smaller (opset 18's num_outputs rule).
    const int64_t each = (dim + outputs - 1) / outputs;
    for (int64_t i = 0; i < outputs; ++i)
      parts.push_back(std::max<int64_t>(0, std::min(each, dim - i * each)));
  }
  int64_t total = 0;
  for (int64_t p : parts)
    total += p;
  if (static_cast<int64_t>(parts.size()) != outputs || total != dim) {
    g.error(node) << "splits " << dim << " into parts that do not add up";
    return failure();
  }
  SmallVector<int64_t> offsets(in.getRank(), 0), sizes(in.getShape()),
      strides(in.getRank(), 1);
  for (int64_t i = 0; i < outputs; ++i) {
    sizes[*axis] = parts[i];
    if (failed(window(g, node, i, offsets, sizes, strides)))
      return failure();
    offsets[*axis] += parts[i];
  }
  return success();
}

LogicalResult gather(GraphImporter &g, const Node &node) {
  RankedTensorType data = g.typeOf(node, 0), indices = g.typeOf(node, 1);
  std::optional<int64_t> axis =
      normalizeAxis(g.intAttr(node, "axis", 0), data.getRank());
  if (!axis || !isa<IntegerType>(indices.getElementType()) ||
      indices.getElementType().isInteger(1)) {
    g.error(node) << "takes " << data << " and indices " << indices
                  << " with an invalid axis or index type";
    return failure();
  }
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  const int64_t dim = data.getDimSize(*axis);
  const HostTensor *known = g.known(node, 1);
  if (known)
    for (double v : known->data)
      if (v < -dim || v >= dim) {
        g.error(node) << "index " << static_cast<int64_t>(v)
                      << " is outside dimension " << *axis << " of " << data;
        return failure();
      }
  const HostTensor *table = g.known(node, 0);
  if (table && known && product(shape) <= kHostElements) {
    HostTensor out;
    out.elementType = data.getElementType();
    out.shape = shape;
    const int64_t outer = product(data.getShape().take_front(*axis));
    const int64_t inner = product(data.getShape().drop_front(*axis + 1));
    for (int64_t o = 0; o < outer; ++o)
      for (double index : known->data) {
        const int64_t k = index < 0 ? index + dim : index;
        for (int64_t i = 0; i < inner; ++i)
          out.data.push_back(table->data[(o * dim + k) * inner + i]);
      }
    g.defineHost(node, 0, std::move(out));
    return success();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  Value index;
  if (known) {
    // Negative indices count from the end in ONNX; fuse.gather's do not.
    HostTensor normalized = *known;
    for (double &v : normalized.data)
      if (v < 0)
        v += dim;
    index = g.materialize(normalized, node.loc);
  } else {
    FailureOr<Value> v = g.operand(node, 1);
    if (failed(v))
      return failure();
    index = *v;
  }
  g.define(node, 0,
           fuse::GatherOp::create(
               g.builder, node.loc,
               RankedTensorType::get(shape, data.getElementType()), *x, index,
               *axis));
  return success();
}

/// GatherElements: out[c] = data[c with c[axis] replaced by indices[c]],
/// with the indices' shape. Folded on the host when data and indices are
/// known (BERT's token-type buffer); otherwise every element's flat index
/// into the data (a constant offset plus the index times the axis stride)
/// feeds one fuse.gather of the flattened data.
LogicalResult gatherElements(GraphImporter &g, const Node &node) {
  RankedTensorType data = g.typeOf(node, 0), indices = g.typeOf(node, 1);
  const int64_t rank = data.getRank();
  std::optional<int64_t> axis = normalizeAxis(g.intAttr(node, "axis", 0), rank);
  bool shapesFit = indices.getRank() == rank;
  for (int64_t d = 0; shapesFit && d < rank; ++d)
    shapesFit = d == *axis || indices.getDimSize(d) <= data.getDimSize(d);
  if (!axis || !shapesFit || !isa<IntegerType>(indices.getElementType()) ||
      indices.getElementType().isInteger(1)) {
    g.error(node) << "takes " << data << " and indices " << indices
                  << " with an invalid axis, shape or index type";
    return failure();
  }
  const int64_t dim = data.getDimSize(*axis);
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * data.getDimSize(d + 1);
  // The flat offset of each output element with its axis coordinate at 0.
  HostTensor offsets;
  offsets.elementType = indices.getElementType();
  offsets.shape.assign(indices.getShape().begin(), indices.getShape().end());
  const int64_t count = product(indices.getShape());
  if (count > (int64_t(1) << 26)) {
    g.error(node) << "has " << count << " indices, more than 2^26";
    return failure();
  }
  offsets.data.reserve(count);
  SmallVector<int64_t> coordinate(rank, 0);
  for (int64_t e = 0; e < count; ++e) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis)
        offset += coordinate[d] * strides[d];
    offsets.data.push_back(static_cast<double>(offset));
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coordinate[d] < indices.getDimSize(d))
        break;
      coordinate[d] = 0;
    }
  }

  const HostTensor *known = g.known(node, 1);
  if (known) {
    HostTensor flat = offsets;
    for (auto [i, v] : llvm::enumerate(known->data)) {
      if (v < -dim || v >= dim) {
        g.error(node) << "index " << static_cast<int64_t>(v)
                      << " is outside dimension " << *axis << " of " << data;
        return failure();
      }
      flat.data[i] += (v < 0 ? v + dim : v) * strides[*axis];
    }
    if (const HostTensor *table = g.known(node, 0)) {
      HostTensor out;
      out.elementType = data.getElementType();
      out.shape = offsets.shape;
      for (double i : flat.data)
        out.data.push_back(table->data[static_cast<int64_t>(i)]);
      g.defineHost(node, 0, std::move(out));
      return success();
    }
    offsets = std::move(flat);
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  Value index = g.materialize(offsets, node.loc);
  if (!known) {
    FailureOr<Value> raw = g.operand(node, 1);
    if (failed(raw))
      return failure();
    // Negative indices count from the end in ONNX; fuse.gather's do not.
    Type element = indices.getElementType();
    auto flags =
        RankedTensorType::get(indices.getShape(), g.builder.getI1Type());
    Value negative = fuse::CompareOp::create(g.builder, node.loc, flags,
                                             fuse::CompareDirection::lt, *raw,
                                             g.scalar(element, 0, node.loc));
    Value wrapped = fuse::AddOp::create(g.builder, node.loc, indices, *raw,
                                        g.scalar(element, dim, node.loc));
    Value k = fuse::SelectOp::create(g.builder, node.loc, indices, negative,
                                     wrapped, *raw);
    Value scaled =
        fuse::MulOp::create(g.builder, node.loc, indices, k,
                            g.scalar(element, strides[*axis], node.loc));
    index = fuse::AddOp::create(g.builder, node.loc, indices, scaled, index);
  }
  auto flatType =
      RankedTensorType::get({product(data.getShape())}, data.getElementType());
  Value flatData = fuse::ReshapeOp::create(g.builder, node.loc, flatType, *x);
  g.define(node, 0,
           fuse::GatherOp::create(
               g.builder, node.loc,
               RankedTensorType::get(indices.getShape(), data.getElementType()),
               flatData, index, /*axis=*/0));
  return success();
}

LogicalResult expand(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  FailureOr<SmallVector<int64_t>> target = g.knownInts(node, 1, "shape");
  if (failed(target))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(in.getShape(), *target);
  if (!shape) {
    g.error(node) << in << " does not broadcast to the shape given";
    return failure();
  }
  FailureOr<Value> x = g.operand(node, 0);
  if (failed(x))
    return failure();
  auto type = RankedTensorType::get(*shape, in.getElementType());
  g.define(node, 0,
           type == in
               ? *x
               : fuse::BroadcastToOp::create(g.builder, node.loc, type, *x)
                     .getResult());
  return success();
}

LogicalResult shapeOf(GraphImporter &g, const Node &node) {
  RankedTensorType in = g.typeOf(node, 0);
  const int64_t rank = in.getRank();
  int64_t start = g.intAttr(node, "start", 0);
  int64_t end = g.intAttr(node, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  HostTensor out;
  out.elementType = g.builder.getI64Type();
  out.shape = {end - start};
  for (int64_t d = start; d < end; ++d)
    out.data.push_back(in.getDimSize(d));
  g.defineHost(node, 0, std::move(out));
  return success();
}

/// A host tensor that may be too large to keep there: defined as a
/// constant op then.
void defineConstant(GraphImporter &g, const Node &node, HostTensor host) {
  if (host.size() <= kHostElements) {
    g.defineHost(node, 0, std::move(host));
    return;
  }
  g.define(node, 0, g.materialize(host, node.loc));
}

LogicalResult constant(GraphImporter &g, const Node &node) {
  if (const onnx::AttributeProto *a = g.attr(node, "value")) {
    FailureOr<HostTensor> host = g.readTensor(a->t(), node.loc);
    if (failed(host))
      return failure();
    defineConstant(g, node, std::move(*host));
    return success();
  }
  HostTensor host;
  if (const onnx::AttributeProto *a = g.attr(node, "value_float")) {
    host.elementType = g.builder.getF32Type();
    host.data = {a->f()};
  } else if (const onnx::AttributeProto *a = g.attr(node, "value_int")) {
    host.elementType = g.builder.getI64Type();
    host.data = {static_cast<double>(a->i())};
  } else if (const onnx::AttributeProto *a = g.attr(node, "value_floats")) {
    host.elementType = g.builder.getF32Type();
    host.data.assign(a->floats().begin(), a->floats().end());
    host.shape = {host.size()};
  } else if (const onnx::AttributeProto *a = g.attr(node, "value_ints")) {
    host.elementType = g.builder.getI64Type();
    for (int64_t v : a->ints())
      host.data.push_back(static_cast<double>(v));
    host.shape = {host.size()};
  } else {
    g.unsupported(node) << "only value, value_float(s) and value_int(s) "
                           "constants are supported";
    return failure();
  }
  defineConstant(g, node, std::move(host));
  return success();
}

LogicalResult constantOfShape(GraphImporter &g, const Node &node) {
  FailureOr<SmallVector<int64_t>> shape = g.knownInts(node, 0, "shape");
  if (failed(shape))
    return failure();
  int64_t elements = 1;
  for (int64_t d : *shape) {
    if (d < 0 || (d != 0 && elements > (int64_t(1) << 40) / d)) {
      g.error(node) << "shape has a negative dimension or more than 2^40 "
                       "elements";
      return failure();
    }
    elements *= d;
  }
  HostTensor fill;
  fill.elementType = g.builder.getF32Type();
  fill.data = {0.0};
  if (const onnx::AttributeProto *a = g.attr(node, "value")) {
    FailureOr<HostTensor> value = g.readTensor(a->t(), node.loc);
    if (failed(value))
      return failure();
    if (value->size() != 1) {
      g.error(node) << "value must hold one element";
      return failure();
    }
    fill = *value;
  }
  const int64_t count = product(*shape);
  if (count <= kHostElements) {
    HostTensor out;
    out.elementType = fill.elementType;
    out.shape = *shape;
    out.data.assign(count, fill.data[0]);
    g.defineHost(node, 0, std::move(out));
    return success();
  }
  // Large: a splat, stored as one element.
  auto type = RankedTensorType::get(*shape, fill.elementType);
  HostTensor one = fill;
  one.shape = {};
  Value scalar = g.materialize(one, node.loc);
  auto splat = cast<DenseElementsAttr>(
      scalar.getDefiningOp<fuse::ConstantOp>().getValue());
  scalar.getDefiningOp()->erase();
  g.define(
      node, 0,
      fuse::ConstantOp::create(g.builder, node.loc, type,
                               cast<ElementsAttr>(splat.resizeSplat(type))));
  return success();
}

LogicalResult range(GraphImporter &g, const Node &node) {
  const HostTensor *start = g.known(node, 0), *limit = g.known(node, 1),
                   *delta = g.known(node, 2);
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1) {
    g.unsupported(node) << "its start, limit and delta must be known scalars";
    return failure();
  }
  const double d = delta->data[0];
  if (d == 0) {
    g.error(node) << "delta is zero";
    return failure();
  }
  const double steps = std::ceil((limit->data[0] - start->data[0]) / d);
  if (!(steps <= double(int64_t(1) << 31))) {
    g.error(node) << "makes more than 2^31 values";
    return failure();
  }
  const int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
  HostTensor out;
  out.elementType = start->elementType;
  out.shape = {count};
  for (int64_t i = 0; i < count; ++i)
    out.data.push_back(start->data[0] + i * d);
  defineConstant(g, node, std::move(out));
  return success();
}

} // namespace

void registerShapeConverters(llvm::StringMap<Converter> &map) {
  map["Reshape"] = reshape;
  map["Flatten"] = flatten;
  map["Squeeze"] = [](GraphImporter &g, const Node &n) {
    return squeeze(g, n, /*insert=*/false);
  };
  map["Unsqueeze"] = [](GraphImporter &g, const Node &n) {
    return squeeze(g, n, /*insert=*/true);
  };
  map["Transpose"] = transpose;
  map["Concat"] = concat;
  map["Slice"] = slice;
  map["Split"] = split;
  map["Gather"] = gather;
  map["GatherElements"] = gatherElements;
  map["Expand"] = expand;
  map["Shape"] = shapeOf;
  map["Constant"] = constant;
  map["ConstantOfShape"] = constantOfShape;
  map["Range"] = range;
}

} // namespace opfuse::onnx_import
