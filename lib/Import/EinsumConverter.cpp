//===- EinsumConverter.cpp - ONNX Einsum as matmuls and sums --------------===//
//
// An Einsum names each operand's axes by letters; what it computes follows
// from where each letter appears. Taken pairwise, left to right, two
// operands are one batched matmul: letters of both that a later operand or
// the output still needs are its batch, letters of both that nothing needs
// any more are its K, the others its M and N. A letter of one operand that
// nothing else names is summed away first; the output's order is one
// transpose at the end. So the GEMM kernels (and fusion) see what a
// frontend writing matmuls would give them.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace opfuse::onnx_import {

namespace {

/// An operand (or a partial product) and the label of each of its axes.
struct Labelled {
  Value value;
  std::string labels;
};

/// The equation's terms with "..." spelled as labels of their own ('0'
/// on, right-aligned like NumPy's broadcasting) and the output made
/// explicit (implicit: the ellipsis, then the letters that appear once,
/// in alphabetical order); failure after a diagnostic.
struct Equation {
  SmallVector<std::string> inputs;
  std::string output;
};

FailureOr<Equation> parseEquation(GraphImporter &g, const Node &node,
                                  ArrayRef<int64_t> ranks) {
  std::string text;
  for (char ch : g.stringAttr(node, "equation", ""))
    if (ch != ' ')
      text.push_back(ch);
  auto fail = [&](const Twine &why) -> FailureOr<Equation> {
    g.error(node) << "equation '" << text << "': " << why;
    return failure();
  };
  const size_t arrow = text.find("->");
  StringRef left = StringRef(text).take_front(arrow);
  SmallVector<StringRef> terms;
  left.split(terms, ',');
  if (terms.size() != ranks.size())
    return fail(Twine(terms.size()) + " terms for " + Twine(ranks.size()) +
                " inputs");
  // The ellipsis's labels: as many as the largest rank it stands for.
  int64_t ellipsis = 0;
  SmallVector<int64_t> covered;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    const size_t dots = term.find("...");
    const int64_t letters =
        static_cast<int64_t>(term.size()) - (dots == StringRef::npos ? 0 : 3);
    const int64_t cover = dots == StringRef::npos ? 0 : rank - letters;
    if (cover < 0 || (dots == StringRef::npos && letters != rank))
      return fail("term '" + term + "' does not name the " + Twine(rank) +
                  " axes of its input");
    covered.push_back(cover);
    ellipsis = std::max(ellipsis, cover);
  }
  if (ellipsis > 10)
    return fail("an ellipsis of more than 10 axes");
  auto spell = [&](StringRef term, int64_t cover,
                   std::string &out) -> LogicalResult {
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.substr(i).starts_with("...")) {
        for (int64_t d = ellipsis - cover; d < ellipsis; ++d)
          out.push_back(static_cast<char>('0' + d));
        i += 2;
        continue;
      }
      if (!llvm::isAlpha(term[i]))
        return failure();
      out.push_back(term[i]);
    }
    return success();
  };
  Equation eq;
  for (auto [term, cover, rank] : llvm::zip(terms, covered, ranks)) {
    eq.inputs.emplace_back();
    if (failed(spell(term, cover, eq.inputs.back())) ||
        static_cast<int64_t>(eq.inputs.back().size()) != rank)
      return fail("'" + term +
                  "' holds a character other than letters and "
                  "one '...'");
  }
  if (arrow != std::string::npos) {
    if (failed(
            spell(StringRef(text).drop_front(arrow + 2), ellipsis, eq.output)))
      return fail("the output holds a character other than letters and "
                  "one '...'");
  } else {
    for (int64_t d = 0; d < ellipsis; ++d)
      eq.output.push_back(static_cast<char>('0' + d));
    std::string once;
    for (char c = 'A'; c <= 'z'; ++c) {
      int count = 0;
      for (const std::string &input : eq.inputs)
        count += llvm::count(input, c);
      if (llvm::isAlpha(c) && count == 1)
        once.push_back(c);
    }
    eq.output += once;
  }
  for (char c : eq.output) {
    if (llvm::count(eq.output, c) != 1)
      return fail("the output names '" + Twine(c) + "' twice");
    if (llvm::none_of(eq.inputs, [&](const std::string &input) {
          return llvm::is_contained(input, c);
        }))
      return fail("the output's '" + Twine(c) + "' is in no input");
  }
  return eq;
}

class EinsumBuilder {
public:
  EinsumBuilder(GraphImporter &g, Location loc, Type element)
      : g(g), b(g.builder), loc(loc), element(element) {}

  /// `x` with the axes of `drop` summed away.
  Labelled sum(Labelled x, StringRef drop) {
    SmallVector<int64_t> axes, shape;
    std::string kept;
    auto type = cast<RankedTensorType>(x.value.getType());
    for (auto [i, label] : llvm::enumerate(x.labels)) {
      if (drop.contains(label)) {
        axes.push_back(i);
      } else {
        kept.push_back(label);
        shape.push_back(type.getDimSize(i));
      }
    }
    if (axes.empty())
      return x;
    Value v = fuse::ReduceSumOp::create(
        b, loc, RankedTensorType::get(shape, element), x.value,
        b.getDenseI64ArrayAttr(axes), /*keepdims=*/false);
    return {v, kept};
  }

  /// `x`'s axes in the order of `labels` (a permutation of its own).
  Value ordered(const Labelled &x, StringRef labels) {
    if (labels == x.labels)
      return x.value;
    SmallVector<int64_t> perm;
    for (char label : labels)
      perm.push_back(x.labels.find(label));
    return transposed(g, loc, x.value, perm);
  }

  /// The product of `x` and `y` summed over the labels of both that
  /// `needed` does not hold.
  Labelled contract(const Labelled &x, const Labelled &y, StringRef needed) {
    std::string batch, m, k, n;
    for (char label : x.labels) {
      if (!llvm::is_contained(y.labels, label))
        m.push_back(label);
      else if (needed.contains(label))
        batch.push_back(label);
      else
        k.push_back(label);
    }
    for (char label : y.labels)
      if (!llvm::is_contained(x.labels, label))
        n.push_back(label);
    auto extent = [&](StringRef labels) {
      int64_t product = 1;
      for (char label : labels)
        product *= size(label);
      return product;
    };
    const int64_t nb = extent(batch), nm = extent(m), nk = extent(k),
                  nn = extent(n);
    // An operand already laid out with K before M (or N before K), as
    // attention's keys are, is read transposed by the GEMM instead of
    // moved by a transpose.
    const bool transposeA = x.labels == batch + k + m && !m.empty();
    const bool transposeB = y.labels == batch + n + k && !n.empty();
    Value lhs = transposeA ? reshaped(x.value, {nb, nk, nm})
                           : reshaped(ordered(x, batch + m + k), {nb, nm, nk});
    Value rhs = transposeB ? reshaped(y.value, {nb, nn, nk})
                           : reshaped(ordered(y, batch + k + n), {nb, nk, nn});
    Value product = fuse::MatmulOp::create(
        b, loc, RankedTensorType::get({nb, nm, nn}, element), lhs, rhs,
        transposeA, transposeB);
    std::string labels = batch + m + n;
    SmallVector<int64_t> shape;
    for (char label : labels)
      shape.push_back(size(label));
    return {reshaped(product, shape), labels};
  }

  Value reshaped(Value v, ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, element);
    if (v.getType() == type)
      return v;
    return fuse::ReshapeOp::create(b, loc, type, v);
  }

  int64_t size(char label) const { return sizes.lookup(label); }

  llvm::DenseMap<char, int64_t> sizes;

private:
  GraphImporter &g;
  OpBuilder &b;
  Location loc;
  Type element;
};

LogicalResult einsum(GraphImporter &g, const Node &node) {
  const int count = node.proto.input_size();
  if (count == 0) {
    g.error(node) << "Einsum needs at least one input";
    return failure();
  }
  SmallVector<RankedTensorType> types;
  SmallVector<int64_t> ranks;
  for (int i = 0; i < count; ++i) {
    RankedTensorType type = g.typeOf(node, i);
    if (!type || !isa<FloatType>(type.getElementType())) {
      g.unsupported(node) << "an operand of type " << type
                          << " is not supported (float tensors only)";
      return failure();
    }
    if (i > 0 && type.getElementType() != types.front().getElementType()) {
      g.error(node) << "operands " << types.front() << " and " << type
                    << " differ in element type";
      return failure();
    }
    types.push_back(type);
    ranks.push_back(type.getRank());
  }
  FailureOr<Equation> eq = parseEquation(g, node, ranks);
  if (failed(eq))
    return failure();
  EinsumBuilder builder(g, node.loc, types.front().getElementType());
  SmallVector<Labelled> operands;
  for (int i = 0; i < count; ++i) {
    const std::string &labels = eq->inputs[i];
    for (auto [axis, label] : llvm::enumerate(labels)) {
      if (llvm::count(labels, label) > 1) {
        g.unsupported(node) << "term '" << labels
                            << "' repeats a label (a diagonal), which is not "
                               "supported";
        return failure();
      }
      const int64_t extent = types[i].getDimSize(axis);
      auto [known, inserted] = builder.sizes.try_emplace(label, extent);
      if (!inserted && known->second != extent) {
        g.error(node) << "label '" << label << "' is " << known->second
                      << " and " << extent << " long (broadcasting a label "
                      << "of size 1 is not supported)";
        return failure();
      }
    }
    FailureOr<Value> v = g.operand(node, i);
    if (failed(v))
      return failure();
    operands.push_back({*v, labels});
  }
  // The labels operand `i` shares with no other operand nor the output are
  // summed away before any product.
  for (size_t i = 0; i < operands.size(); ++i) {
    std::string elsewhere = eq->output;
    for (size_t j = 0; j < operands.size(); ++j)
      if (j != i)
        elsewhere += operands[j].labels;
    std::string alone;
    for (char label : operands[i].labels)
      if (!llvm::is_contained(elsewhere, label))
        alone.push_back(label);
    operands[i] = builder.sum(operands[i], alone);
  }
  Labelled result = operands.front();
  for (size_t i = 1; i < operands.size(); ++i) {
    std::string needed = eq->output;
    for (size_t j = i + 1; j < operands.size(); ++j)
      needed += operands[j].labels;
    result = builder.contract(result, operands[i], needed);
  }
  g.define(node, 0, builder.ordered(result, eq->output));
  return success();
}

} // namespace

void registerEinsumConverter(llvm::StringMap<Converter> &map) {
  map["Einsum"] = einsum;
}

} // namespace opfuse::onnx_import
